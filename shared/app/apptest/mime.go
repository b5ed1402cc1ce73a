package apptest

import "mime"

// mimeDecoder decodes RFC 2047 encoded words in headers.
type mimeDecoder = mime.WordDecoder
