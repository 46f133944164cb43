" Vim 9 + Debian vim-ale 3.3, batch: vim -Nu NONE -i NONE -n -es -S test_ale.vim
" with QRELS_VIM (editors/vim/qrels_lsp.vim), QRELS_LSP_BIN, QRELS_FILE, ALE_OUT (results file)
set nocompatible
set rtp^=/usr/share/vim-ale
filetype on
let g:ale_enabled = 1
let g:ale_lint_on_enter = 1
runtime plugin/ale.vim
let g:qrels_lsp_executable = $QRELS_LSP_BIN
execute 'source ' . fnameescape($QRELS_VIM)
function! Out(s) abort
  call writefile([a:s], $ALE_OUT, 'a')   " -es mode: results go to a file
endfunction
execute 'edit ' . fnameescape($QRELS_FILE)
call Out('FILETYPE ' . &filetype)
ALELint
" wait until the list is non-empty and unchanged for 1.5 s
let s:n = 0
let s:stable = 0
let s:last = []
while s:n < 600 && s:stable < 15
  sleep 100m
  let s:n += 1
  let s:now = ale#engine#GetLoclist(bufnr(''))
  if !empty(s:now) && s:now == s:last
    let s:stable += 1
  else
    let s:stable = 0
  endif
  let s:last = deepcopy(s:now)
endwhile
for s:d in ale#engine#GetLoclist(bufnr(''))
  call Out(printf('DIAG %d %d %s %s %s', s:d.lnum - 1, s:d.col - 1, s:d.type, get(s:d, 'code', ''), s:d.text))
endfor
call Out('DONE')
qall!
