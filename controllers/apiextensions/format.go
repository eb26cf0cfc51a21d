package apiextensions

import (
	"encoding/hex"
	"net"
	"net/mail"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// The string formats kube-apiserver checks in a CustomResourceDefinition's
// schema (apiextensions-apiserver's supportedVersionedFormats, as of 1.34),
// by their name with dashes removed — the go-openapi normalisation, so
// "date-time" is "datetime". A format not listed here is ignored, as kube
// strips it before validating.
var stringFormats = map[string]func(string) bool{
	"bsonobjectid": isBSONObjectID,
	"uri":          isURI,
	"email":        isEmail,
	"hostname":     isHostname,
	"ipv4":         isIPv4,
	"ipv6":         isIPv6,
	"cidr":         isCIDR,
	"mac":          isMAC,
	"uuid":         uuidCheck(0),
	"uuid3":        uuidCheck('3'),
	"uuid4":        uuidCheck('4'),
	"uuid5":        uuidCheck('5'),
	"isbn":         func(s string) bool { return isISBN10(s) || isISBN13(s) },
	"isbn10":       isISBN10,
	"isbn13":       isISBN13,
	"creditcard":   isCreditCard,
	"ssn":          isSSN,
	"hexcolor":     isHexColor,
	"rgbcolor":     isRGBColor,
	"byte":         isBase64,
	"password":     func(string) bool { return true },
	"date":         isDate,
	"duration":     isDuration,
	"datetime":     isDateTime,
	"k8sshortname": isShortName,
	"k8slongname":  isLongName,
}

// effectiveFormat is the format kube-apiserver keeps for a node of type
// typ ("" when the node has no single type, as for
// x-kubernetes-int-or-string): string formats it knows for untyped and
// string nodes, int32/int64 for integers, float/double for numbers, and
// nothing else (apiextensions-apiserver's
// StripUnsupportedFormatsPostProcessorForVersion).
func effectiveFormat(typ, format string) string {
	if format == "" {
		return ""
	}
	switch typ {
	case "", "string":
		if _, ok := stringFormats[strings.ReplaceAll(format, "-", "")]; ok {
			return format
		}
	case "integer":
		if format == "int32" || format == "int64" {
			return format
		}
	case "number":
		if format == "float" || format == "double" {
			return format
		}
	}
	return ""
}

// formatChecker returns the check of a string format, and whether there is
// one.
func formatChecker(format string) (func(string) bool, bool) {
	f, ok := stringFormats[strings.ReplaceAll(format, "-", "")]
	return f, ok
}

func isBSONObjectID(s string) bool {
	if len(s) != 24 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

func isURI(s string) bool {
	_, err := url.ParseRequestURI(s)
	return err == nil
}

func isEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address != ""
}

// isHostname accepts one label of up to 63 letters, digits, symbols and
// dashes (not leading), or dotted labels ending in a top-level label of 2
// to 63 letters; 255 bytes at most and no part longer than 63 — the
// go-openapi hostname format.
func isHostname(s string) bool {
	if len(s) > 255 || s == "" {
		return false
	}
	for _, p := range strings.Split(s, ".") {
		if len(p) > 63 {
			return false
		}
	}
	return rxHostname.MatchString(s)
}

var rxHostname = regexp.MustCompile(hostnameAlternatives)

// hostnameAlternatives spells out a single label (a first character and up
// to 62 more, dashes allowed after the first) or dotted labels with a
// letters-only top-level label.
const (
	hostChar             = `[a-zA-Z0-9\p{S}\p{L}]`
	hostCharDash         = `[a-zA-Z0-9\-\p{S}\p{L}]`
	hostnameAlternatives = `^(?:` + hostChar + `(?:-?` + hostChar + `{0,62})?` +
		`|(?:` + hostChar + `(?:` + hostCharDash + `{0,61}` + hostChar + `)?\.)+[a-zA-Z\p{L}]{2,63})$`
)

// parseIPLoose parses an IP as Kubernetes' ParseIPSloppy does: IPv4 octets
// may have leading zeros.
func parseIPLoose(s string) net.IP {
	if ip := net.ParseIP(s); ip != nil {
		return ip
	}
	if strings.Contains(s, ":") {
		return nil
	}
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return nil
	}
	b := make([]byte, 4)
	for i, p := range parts {
		if p == "" || !allDigits(p) {
			return nil
		}
		n, err := strconv.ParseUint(p, 10, 8)
		if err != nil {
			return nil
		}
		b[i] = byte(n)
	}
	return net.IPv4(b[0], b[1], b[2], b[3])
}

func isIPv4(s string) bool { return parseIPLoose(s) != nil && strings.Contains(s, ".") }

func isIPv6(s string) bool { return net.ParseIP(s) != nil && strings.Contains(s, ":") }

func isCIDR(s string) bool {
	ip, bits, ok := strings.Cut(s, "/")
	if !ok || parseIPLoose(ip) == nil {
		return false
	}
	n, err := strconv.Atoi(bits)
	if err != nil || bits == "" || !allDigits(bits) {
		return false
	}
	max := 128
	if !strings.Contains(ip, ":") {
		max = 32
	}
	return n <= max
}

func isMAC(s string) bool {
	_, err := net.ParseMAC(s)
	return err == nil
}

// uuidCheck checks 8-4-4-4-12 hex digits (dashes optional, any case); a
// non-zero version also fixes the version digit and, for 4 and 5, the
// variant digit (8, 9, a or b).
func uuidCheck(version byte) func(string) bool {
	return func(s string) bool {
		groups := []int{8, 4, 4, 4, 12}
		var digits []byte
		rest := s
		for i, n := range groups {
			if len(rest) < n {
				return false
			}
			g := rest[:n]
			if _, err := hex.DecodeString(g); err != nil {
				return false
			}
			digits = append(digits, strings.ToLower(g)...)
			rest = rest[n:]
			if i < len(groups)-1 && strings.HasPrefix(rest, "-") {
				rest = rest[1:]
			}
		}
		if rest != "" {
			return false
		}
		if version != 0 && digits[12] != version {
			return false
		}
		if version == '4' || version == '5' {
			return strings.IndexByte("89ab", digits[16]) >= 0
		}
		return true
	}
}

func stripChars(s, cut string) string {
	return strings.Map(func(r rune) rune {
		if strings.ContainsRune(cut, r) || unicode.IsSpace(r) && strings.Contains(cut, " ") {
			return -1
		}
		return r
	}, s)
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isISBN10(s string) bool {
	s = stripChars(s, " -")
	if len(s) != 10 || !allDigits(s[:9]) || !(s[9] == 'X' || allDigits(s[9:])) {
		return false
	}
	sum := 0
	for i := 0; i < 9; i++ {
		sum += (i + 1) * int(s[i]-'0')
	}
	if s[9] == 'X' {
		sum += 100
	} else {
		sum += 10 * int(s[9]-'0')
	}
	return sum%11 == 0
}

func isISBN13(s string) bool {
	s = stripChars(s, " -")
	if len(s) != 13 || !allDigits(s) {
		return false
	}
	sum := 0
	for i := 0; i < 12; i++ {
		w := 1
		if i%2 == 1 {
			w = 3
		}
		sum += w * int(s[i]-'0')
	}
	return int(s[12]-'0') == (10-sum%10)%10
}

var rxCreditCard = regexp.MustCompile(`^(?:4\d{12}(?:\d{3})?|5[1-5]\d{14}|6(?:011|5\d\d)\d{12}|3[47]\d{13}|3(?:0[0-5]|[68]\d)\d{11}|(?:2131|1800|35\d{3})\d{11})$`)

// isCreditCard: the digits (anything else dropped) of a known issuer's
// number that pass the Luhn check.
func isCreditCard(s string) bool {
	d := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s)
	if !rxCreditCard.MatchString(d) {
		return false
	}
	sum, double := 0, false
	for i := len(d) - 1; i >= 0; i-- {
		n := int(d[i] - '0')
		if double {
			n *= 2
			if n >= 10 {
				n = n%10 + 1
			}
		}
		sum += n
		double = !double
	}
	return sum%10 == 0
}

var (
	rxSSN      = regexp.MustCompile(`^\d{3}[- ]?\d{2}[- ]?\d{4}$`)
	rxHexColor = regexp.MustCompile(`^#?(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`)
	rxRGBColor = regexp.MustCompile(`^rgb\(\s*(` + octet + `)\s*,\s*(` + octet + `)\s*,\s*(` + octet + `)\s*\)$`)
	rxBase64   = regexp.MustCompile(`^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$`)
	rxTime     = regexp.MustCompile(`^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$`)
	rxDurPart  = regexp.MustCompile(`((\d+)\s*([A-Za-zµ]+))`)
	rxShort    = regexp.MustCompile(`^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?$`)
	rxLong     = regexp.MustCompile(`^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*$`)
)

const octet = `0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5]`

func isSSN(s string) bool      { return len(s) == 11 && rxSSN.MatchString(s) }
func isHexColor(s string) bool { return rxHexColor.MatchString(s) }
func isRGBColor(s string) bool { return rxRGBColor.MatchString(s) }

// isBase64 requires padded standard base64 of at least one group (the empty
// string fails, as in kube).
func isBase64(s string) bool { return rxBase64.MatchString(s) }

func isDate(s string) bool {
	_, err := time.Parse("2006-01-02", s)
	return err == nil
}

// isDateTime: a full date, "t" (any case), then hh:mm:ss with optional
// fraction and a "z" or ±hh:mm offset, hours ≤ 23, minutes and seconds ≤ 59.
func isDateTime(s string) bool {
	if len(s) < 4 {
		return false
	}
	parts := strings.Split(strings.ToLower(s), "t")
	if len(parts) < 2 || !isDate(parts[0]) {
		return false
	}
	m := rxTime.FindStringSubmatch(parts[1])
	return m != nil && m[1] <= "23" && m[2] <= "59" && m[3] <= "59"
}

// durationUnits are the units a duration may be written in (besides Go's
// time.ParseDuration syntax): each list's last spelling also matches as a
// prefix ("days", "hours").
var durationUnits = [][]string{
	{"ns", "nano"}, {"us", "µs", "micro"}, {"ms", "milli"}, {"s", "sec"},
	{"m", "min"}, {"h", "hr", "hour"}, {"d", "day"}, {"w", "wk", "week"},
}

// isDuration accepts Go durations and, like go-openapi, any string holding
// at least one "<digits> <unit>" with a known unit.
func isDuration(s string) bool {
	if _, err := time.ParseDuration(s); err == nil {
		return true
	}
	for _, m := range rxDurPart.FindAllStringSubmatch(s, -1) {
		if _, err := strconv.Atoi(m[2]); err != nil {
			return false
		}
		unit := strings.ToLower(strings.TrimSpace(m[3]))
		for _, spellings := range durationUnits {
			for i, sp := range spellings {
				if strings.EqualFold(sp, unit) || i == len(spellings)-1 && strings.HasPrefix(unit, sp) {
					return true
				}
			}
		}
	}
	return false
}

func isShortName(s string) bool { return len(s) <= 63 && rxShort.MatchString(s) }
func isLongName(s string) bool  { return len(s) <= 253 && rxLong.MatchString(s) }
