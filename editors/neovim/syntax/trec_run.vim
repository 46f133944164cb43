" TREC run: query-id Q0 doc-id rank score tag (mirrors grammars/trec-run.tmLanguage.json)
if exists("b:current_syntax") | finish | endif
syn match trecRunComment "^\s*#.*$"
syn match trecRunMalformed "^\s*[^#[:space:]].*$" contains=NONE
syn match trecRunLine "^\s*\S\+\s\+\S\+\s\+\S\+\s\+\d\+\s\+[-+]\?\%(\d\+\.\?\d*\|\.\d\+\)\%([eE][-+]\?\d\+\)\?\s\+\S\+\s*$" contains=trecRunQid
syn match trecRunQid "^\s*\S\+" contained nextgroup=trecRunIter skipwhite
syn match trecRunIter "\S\+" contained nextgroup=trecRunDoc skipwhite
syn match trecRunDoc "\S\+" contained nextgroup=trecRunRank skipwhite
syn match trecRunRank "\d\+" contained nextgroup=trecRunScore skipwhite
syn match trecRunScore "\S\+" contained nextgroup=trecRunTag skipwhite
syn match trecRunTag "\S\+" contained
hi def link trecRunComment Comment
hi def link trecRunMalformed Error
hi def link trecRunQid Identifier
hi def link trecRunIter Keyword
hi def link trecRunDoc String
hi def link trecRunRank Number
hi def link trecRunScore Float
hi def link trecRunTag Type
let b:current_syntax = "trec_run"
