" qrels-lsp for Vim 8.2+/9 with ALE (https://github.com/dense-analysis/ale).
" Source it from your vimrc:  source /path/to/qrels-lsp/editors/vim/qrels_lsp.vim
" Golden sets and run YAML get the compound filetype `yaml.qrels` (YAML highlighting kept, ALE runs
" the `qrels` linters too); TREC files get `trec_qrels` / `trec_run`.
let g:qrels_lsp_executable = get(g:, 'qrels_lsp_executable', 'qrels-lsp')   " pipx install /path/to/qrels-lsp

augroup qrels_lsp_filetypes
  autocmd!
  autocmd BufRead,BufNewFile *.qrels.yaml,*.qrels.yml,*.run.yaml,*.run.yml setlocal filetype=yaml.qrels
  autocmd BufRead,BufNewFile *.qrels,qrels,qrels.txt,*.qrels.txt setlocal filetype=trec_qrels
  autocmd BufRead,BufNewFile *.trec,*.run,*.run.txt setlocal filetype=trec_run
augroup END

function! s:QrelsRoot(buffer) abort
  let l:marker = ale#path#FindNearestFile(a:buffer, 'qrels-lsp.toml')
  if empty(l:marker)
    let l:marker = ale#path#FindNearestFile(a:buffer, 'pyproject.toml')
  endif
  return empty(l:marker) ? expand('#' . a:buffer . ':p:h') : fnamemodify(l:marker, ':h')
endfunction

for s:ft in ['qrels', 'trec_qrels', 'trec_run']
  call ale#linter#Define(s:ft, {
  \   'name': 'qrels_lsp',
  \   'lsp': 'stdio',
  \   'executable': {b -> g:qrels_lsp_executable},
  \   'command': '%e serve',
  \   'project_root': function('s:QrelsRoot'),
  \   'lsp_config': {b -> {'qrels': get(g:, 'qrels_lsp_settings', {})}},
  \   'initialization_options': {b -> {'qrels': get(g:, 'qrels_lsp_settings', {})}},
  \})
endfor
