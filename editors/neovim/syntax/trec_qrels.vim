" TREC qrels: query-id iteration doc-id grade (mirrors grammars/trec-qrels.tmLanguage.json)
if exists("b:current_syntax") | finish | endif
syn match trecQrelsComment "^\s*#.*$"
syn match trecQrelsMalformed "^\s*[^#[:space:]].*$" contains=NONE
syn match trecQrelsLine "^\s*\S\+\s\+\S\+\s\+\S\+\s\+-\?\d\+\%(\.\d\+\)\?\s*$" contains=trecQrelsQid
syn match trecQrelsQid "^\s*\S\+" contained nextgroup=trecQrelsIter skipwhite
syn match trecQrelsIter "\S\+" contained nextgroup=trecQrelsDoc skipwhite
syn match trecQrelsDoc "\S\+" contained nextgroup=trecQrelsGrade skipwhite
syn match trecQrelsGrade "-\?\d\+\%(\.\d\+\)\?" contained
hi def link trecQrelsComment Comment
hi def link trecQrelsMalformed Error
hi def link trecQrelsQid Identifier
hi def link trecQrelsIter Keyword
hi def link trecQrelsDoc String
hi def link trecQrelsGrade Number
let b:current_syntax = "trec_qrels"
