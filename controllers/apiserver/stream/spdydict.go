package stream

// spdyDictionary is the zlib dictionary of SPDY/3 header blocks (SPDY
// Protocol draft 3, section 2.6.10.1): both directions' compressors
// start from it.
const spdyDictionary = "" +
	"\x00\x00\x00\x07options\x00\x00\x00\x04head\x00\x00\x00\x04po" +
	"st\x00\x00\x00\x03put\x00\x00\x00\x06delete\x00\x00\x00\x05tr" +
	"ace\x00\x00\x00\x06accept\x00\x00\x00\x0eaccept-charset\x00\x00" +
	"\x00\x0faccept-encoding\x00\x00\x00\x0faccept-language\x00\x00" +
	"\x00\x0daccept-ranges\x00\x00\x00\x03age\x00\x00\x00\x05allow" +
	"\x00\x00\x00\x0dauthorization\x00\x00\x00\x0dcache-control\x00" +
	"\x00\x00\x0aconnection\x00\x00\x00\x0ccontent-base\x00\x00\x00" +
	"\x10content-encoding\x00\x00\x00\x10content-language\x00\x00\x00" +
	"\x0econtent-length\x00\x00\x00\x10content-location\x00\x00\x00" +
	"\x0bcontent-md5\x00\x00\x00\x0dcontent-range\x00\x00\x00\x0cc" +
	"ontent-type\x00\x00\x00\x04date\x00\x00\x00\x04etag\x00\x00\x00" +
	"\x06expect\x00\x00\x00\x07expires\x00\x00\x00\x04from\x00\x00" +
	"\x00\x04host\x00\x00\x00\x08if-match\x00\x00\x00\x11if-modifi" +
	"ed-since\x00\x00\x00\x0dif-none-match\x00\x00\x00\x08if-range" +
	"\x00\x00\x00\x13if-unmodified-since\x00\x00\x00\x0dlast-modif" +
	"ied\x00\x00\x00\x08location\x00\x00\x00\x0cmax-forwards\x00\x00" +
	"\x00\x06pragma\x00\x00\x00\x12proxy-authenticate\x00\x00\x00\x13" +
	"proxy-authorization\x00\x00\x00\x05range\x00\x00\x00\x07refer" +
	"er\x00\x00\x00\x0bretry-after\x00\x00\x00\x06server\x00\x00\x00" +
	"\x02te\x00\x00\x00\x07trailer\x00\x00\x00\x11transfer-encodin" +
	"g\x00\x00\x00\x07upgrade\x00\x00\x00\x0auser-agent\x00\x00\x00" +
	"\x04vary\x00\x00\x00\x03via\x00\x00\x00\x07warning\x00\x00\x00" +
	"\x10www-authenticate\x00\x00\x00\x06method\x00\x00\x00\x03get" +
	"\x00\x00\x00\x06status\x00\x00\x00\x06200 OK\x00\x00\x00\x07v" +
	"ersion\x00\x00\x00\x08HTTP/1.1\x00\x00\x00\x03url\x00\x00\x00" +
	"\x06public\x00\x00\x00\x0aset-cookie\x00\x00\x00\x0akeep-aliv" +
	"e\x00\x00\x00\x06origin10010120120220520630030230330430530630" +
	"7402405406407408409410411412413414415416417502504505203 Non-A" +
	"uthoritative Information204 No Content301 Moved Permanently40" +
	"0 Bad Request401 Unauthorized403 Forbidden404 Not Found500 In" +
	"ternal Server Error501 Not Implemented503 Service Unavailable" +
	"Jan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 Mon" +
	", Tue, Wed, Thu, Fri, Sat, Sun, GMTchunked,text/html,image/pn" +
	"g,image/jpg,image/gif,application/xml,application/xhtml+xml,t" +
	"ext/plain,text/javascript,publicprivatemax-age=gzip,deflate,s" +
	"dchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0."
