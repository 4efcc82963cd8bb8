import CZlib
import Foundation
import Glibc
import Testing
import TestSupport

/// Every fixture in `manifests/invalid/` is refused by `assetsync plan` with exit status 2,
/// nothing on stdout, and exactly the one-line message pinned here; the examples are accepted.
///
/// The table holds what the binary must print, word for word.
@Suite struct InvalidManifestTests {
    /// How the product refuses any DOCTYPE (and so every entity attack).
    static let doctypeRefused =
        "a DOCTYPE (or any other markup declaration) is not allowed; "
        + "manifests may use only XML's predefined entities and character references"

    /// The most memory `plan` may use to refuse any fixture, in KiB (measured with /usr/bin/time).
    /// A streaming reader needs a few MiB whatever the manifest's size; the binary alone takes ~18 MiB.
    static let peakRSSLimitKiB = 64 * 1024

    /// Fixture file name in `manifests/invalid/` → the exact stderr of
    /// `assetsync plan manifests/invalid/<fixture> --dest <dir>`, without its final newline.
    static let expectations: [(fixture: String, stderr: String)] = [
        // --- path: traversal, absolute, reserved, empty --------------------------------------
        ("path-dotdot-leading.xml", #"Error: manifests/invalid/path-dotdot-leading.xml:3:3: <file>: path must not have a "." or ".." component: "../x""#),
        ("path-dotdot-leading.json", #"Error: manifests/invalid/path-dotdot-leading.json:5:14: files[0]: path must not have a "." or ".." component: "../x""#),
        ("path-dotdot.xml", #"Error: manifests/invalid/path-dotdot.xml:3:3: <file>: path must not have a "." or ".." component: "a/../../etc/passwd""#),
        ("path-dotdot.json", #"Error: manifests/invalid/path-dotdot.json:5:14: files[0]: path must not have a "." or ".." component: "a/../../etc/passwd""#),
        ("path-dot-component.xml", #"Error: manifests/invalid/path-dot-component.xml:3:3: <file>: path must not have a "." or ".." component: "a/./b""#),
        ("path-dot-component.json", #"Error: manifests/invalid/path-dot-component.json:5:14: files[0]: path must not have a "." or ".." component: "a/./b""#),
        ("path-dot-alone.xml", #"Error: manifests/invalid/path-dot-alone.xml:3:3: <file>: path must not have a "." or ".." component: ".""#),
        ("path-dot-alone.json", #"Error: manifests/invalid/path-dot-alone.json:5:14: files[0]: path must not have a "." or ".." component: ".""#),
        ("path-dotdot-alone.xml", #"Error: manifests/invalid/path-dotdot-alone.xml:3:3: <file>: path must not have a "." or ".." component: "..""#),
        ("path-dotdot-alone.json", #"Error: manifests/invalid/path-dotdot-alone.json:5:14: files[0]: path must not have a "." or ".." component: "..""#),
        ("path-trailing-slash.xml", #"Error: manifests/invalid/path-trailing-slash.xml:3:3: <file>: path must not have an empty component ("//" or a trailing "/"): "a/""#),
        ("path-trailing-slash.json", #"Error: manifests/invalid/path-trailing-slash.json:5:14: files[0]: path must not have an empty component ("//" or a trailing "/"): "a/""#),
        ("path-double-slash.xml", #"Error: manifests/invalid/path-double-slash.xml:3:3: <file>: path must not have an empty component ("//" or a trailing "/"): "a//b""#),
        ("path-double-slash.json", #"Error: manifests/invalid/path-double-slash.json:5:14: files[0]: path must not have an empty component ("//" or a trailing "/"): "a//b""#),
        ("path-backslash.xml", #"Error: manifests/invalid/path-backslash.xml:3:3: <file>: path must not contain a backslash: "..\\x""#),
        ("path-backslash.json", #"Error: manifests/invalid/path-backslash.json:5:14: files[0]: path must not contain a backslash: "..\\x""#),
        ("path-absolute.xml", #"Error: manifests/invalid/path-absolute.xml:3:3: <file>: path must be relative, not absolute: "/etc/passwd""#),
        ("path-absolute.json", #"Error: manifests/invalid/path-absolute.json:5:14: files[0]: path must be relative, not absolute: "/etc/passwd""#),
        ("path-reserved.xml", #"Error: manifests/invalid/path-reserved.xml:3:3: <file>: path must not be under .assetsync/, which assetsync keeps for itself: ".assetsync/state""#),
        ("path-reserved.json", #"Error: manifests/invalid/path-reserved.json:5:14: files[0]: path must not be under .assetsync/, which assetsync keeps for itself: ".assetsync/state""#),
        ("path-reserved-itself.xml", #"Error: manifests/invalid/path-reserved-itself.xml:3:3: <file>: path must not be under .assetsync/, which assetsync keeps for itself: ".assetsync""#),
        ("path-reserved-itself.json", #"Error: manifests/invalid/path-reserved-itself.json:5:14: files[0]: path must not be under .assetsync/, which assetsync keeps for itself: ".assetsync""#),
        ("path-empty.xml", #"Error: manifests/invalid/path-empty.xml:3:3: <file>: path must not be empty"#),
        ("path-empty.json", #"Error: manifests/invalid/path-empty.json:5:14: files[0]: path must not be empty"#),
        ("path-missing.xml", #"Error: manifests/invalid/path-missing.xml:3:3: <file>: missing the required attribute path"#),
        ("path-missing.json", #"Error: manifests/invalid/path-missing.json:5:5: files[0]: missing the required key "path""#),

        // --- path: lengths (bytes, not characters) -------------------------------------------
        ("path-component-too-long.xml", #"Error: manifests/invalid/path-component-too-long.xml:3:3: <file>: path components must be at most 255 bytes long: "a/\#(String(repeating: "b", count: 78))"… (258 bytes)"#),
        ("path-component-too-long.json", #"Error: manifests/invalid/path-component-too-long.json:5:14: files[0]: path components must be at most 255 bytes long: "a/\#(String(repeating: "b", count: 78))"… (258 bytes)"#),
        ("path-component-too-long-utf8.xml", #"Error: manifests/invalid/path-component-too-long-utf8.xml:3:3: <file>: path components must be at most 255 bytes long: "a/\#(String(repeating: "é", count: 78))"… (258 bytes)"#),
        ("path-component-too-long-utf8.json", #"Error: manifests/invalid/path-component-too-long-utf8.json:5:14: files[0]: path components must be at most 255 bytes long: "a/\#(String(repeating: "é", count: 78))"… (258 bytes)"#),
        ("path-too-long.xml", #"Error: manifests/invalid/path-too-long.xml:3:3: <file>: path must be at most 4096 bytes long: "\#(String(repeating: "c", count: 80))"… (4097 bytes)"#),
        ("path-too-long.json", #"Error: manifests/invalid/path-too-long.json:5:14: files[0]: path must be at most 4096 bytes long: "\#(String(repeating: "c", count: 80))"… (4097 bytes)"#),
        // Refused where the value starts, before it is buffered (both used to cost 200+ MiB).
        ("path-huge.xml.gz", #"Error: manifests/invalid/path-huge.xml.gz:2:3: an attribute value is longer than 65536 bytes"#),
        ("path-huge.json.gz", #"Error: manifests/invalid/path-huge.json.gz:2:12: files[0]: path must be at most 4096 bytes long: "\#(String(repeating: "a", count: 80))"… (more than 69553 bytes)"#),

        // --- path: control characters and encoding -------------------------------------------
        ("path-control-tab.xml", #"Error: manifests/invalid/path-control-tab.xml:3:3: <file>: path must not contain control characters: "a\tb""#),
        ("path-control-tab.json", #"Error: manifests/invalid/path-control-tab.json:5:14: files[0]: path must not contain control characters: "a\tb""#),
        ("path-control-newline.xml", #"Error: manifests/invalid/path-control-newline.xml:3:3: <file>: path must not contain control characters: "a\nb""#),
        ("path-control-newline.json", #"Error: manifests/invalid/path-control-newline.json:5:14: files[0]: path must not contain control characters: "a\nb""#),
        ("path-control-c1.xml", #"Error: manifests/invalid/path-control-c1.xml:3:3: <file>: path must not contain control characters: "a\u{85}b""#),
        ("path-control-c1.json", #"Error: manifests/invalid/path-control-c1.json:5:14: files[0]: path must not contain control characters: "a\u{85}b""#),
        ("path-control-x01.xml", #"Error: manifests/invalid/path-control-x01.xml:3:20: not well-formed XML: xmlParseCharRef: invalid xmlChar value 1"#),
        ("path-control-u0001.json", #"Error: manifests/invalid/path-control-u0001.json:5:14: files[0]: path must not contain control characters: "a\u{01}b""#),
        ("path-control-nul.json", #"Error: manifests/invalid/path-control-nul.json:5:14: files[0]: path must not contain control characters: "a\u{00}b""#),
        ("path-raw-tab.json", #"Error: manifests/invalid/path-raw-tab.json:5:16: files[0]: path has a raw control character; JSON strings must escape it: "\t""#),
        ("path-invalid-utf8.xml", #"Error: manifests/invalid/path-invalid-utf8.xml:3:16: not well-formed XML: Input is not proper UTF-8, indicate encoding ! Bytes: 0xFF 0x62 0x22 0x20"#),
        ("path-invalid-utf8.json", #"Error: manifests/invalid/path-invalid-utf8.json:5:14: files[0]: path is not valid UTF-8: "a\xffb""#),
        ("path-overlong-utf8.xml", #"Error: manifests/invalid/path-overlong-utf8.xml:3:16: not well-formed XML: Input is not proper UTF-8, indicate encoding ! Bytes: 0xC0 0xAF 0x62 0x22"#),
        ("path-overlong-utf8.json", #"Error: manifests/invalid/path-overlong-utf8.json:5:14: files[0]: path is not valid UTF-8: "a\xc0\xafb""#),
        ("path-lone-surrogate.xml", #"Error: manifests/invalid/path-lone-surrogate.xml:3:24: not well-formed XML: xmlParseCharRef: invalid xmlChar value 55296"#),
        ("path-lone-surrogate.json", #"Error: manifests/invalid/path-lone-surrogate.json:5:16: files[0]: path has an unpaired UTF-16 surrogate escape: "\\ud800""#),

        // --- path: across entries --------------------------------------------------------------
        ("path-duplicate.xml", #"Error: manifests/invalid/path-duplicate.xml:5:3: <file>: path is listed twice (also at line 3, column 3): "a/b""#),
        ("path-duplicate.json", #"Error: manifests/invalid/path-duplicate.json:7:5: files[2]: path is listed twice (also at files[0]): "a/b""#),
        ("path-file-then-dir.xml", #"Error: manifests/invalid/path-file-then-dir.xml:3:3: <file>: path is a file here but a directory of "a/b" (at line 4, column 3): "a""#),
        ("path-file-then-dir.json", #"Error: manifests/invalid/path-file-then-dir.json:5:5: files[0]: path is a file here but a directory of "a/b" (at files[1]): "a""#),
        ("path-dir-then-file.xml", #"Error: manifests/invalid/path-dir-then-file.xml:4:3: <file>: path is a file here but a directory of "a/b" (at line 3, column 3): "a""#),
        ("path-dir-then-file.json", #"Error: manifests/invalid/path-dir-then-file.json:6:5: files[1]: path is a file here but a directory of "a/b" (at files[0]): "a""#),
        // one name in NFC and in NFD is one path (a cache on macOS could not hold both)
        ("path-duplicate-nfc-nfd.xml", #"Error: manifests/invalid/path-duplicate-nfc-nfd.xml:5:3: <file>: path is listed twice (also at line 3, column 3, in another Unicode normalization form): "videos/cafe\#u{301}.mp4""#),
        ("path-duplicate-nfc-nfd.json", #"Error: manifests/invalid/path-duplicate-nfc-nfd.json:7:5: files[2]: path is listed twice (also at files[0], in another Unicode normalization form): "videos/cafe\#u{301}.mp4""#),
        ("path-file-then-dir-nfc-nfd.xml", #"Error: manifests/invalid/path-file-then-dir-nfc-nfd.xml:3:3: <file>: path is a file here but a directory of "cafe\#u{301}/intro.mp4" (at line 4, column 3): "caf\#u{e9}""#),
        ("path-file-then-dir-nfc-nfd.json", #"Error: manifests/invalid/path-file-then-dir-nfc-nfd.json:5:5: files[0]: path is a file here but a directory of "cafe\#u{301}/intro.mp4" (at files[1]): "caf\#u{e9}""#),
        ("path-directory-nfc-nfd.xml", #"Error: manifests/invalid/path-directory-nfc-nfd.xml:4:3: <file>: path's directory "cafe\#u{301}/" is spelled in another Unicode normalization form in "caf\#u{e9}/a.mp4" (at line 3, column 3): "cafe\#u{301}/b.mp4""#),
        ("path-directory-nfc-nfd.json", #"Error: manifests/invalid/path-directory-nfc-nfd.json:6:5: files[1]: path's directory "cafe\#u{301}/" is spelled in another Unicode normalization form in "caf\#u{e9}/a.mp4" (at files[0]): "cafe\#u{301}/b.mp4""#),

        // --- size ------------------------------------------------------------------------------
        ("size-negative.xml", #"Error: manifests/invalid/size-negative.xml:3:3: <file>: size must not be negative: "-1""#),
        ("size-negative.json", #"Error: manifests/invalid/size-negative.json:5:27: files[0]: size must not be negative: "-1""#),
        ("size-over-int64.xml", #"Error: manifests/invalid/size-over-int64.xml:3:3: <file>: size must fit in a signed 64-bit integer (at most 9223372036854775807): "9223372036854775808""#),
        ("size-over-int64.json", #"Error: manifests/invalid/size-over-int64.json:5:27: files[0]: size must fit in a signed 64-bit integer (at most 9223372036854775807): "9223372036854775808""#),
        ("size-fraction.xml", #"Error: manifests/invalid/size-fraction.xml:3:3: <file>: size must be a whole number of bytes, without fraction or exponent: "1.5""#),
        ("size-fraction.json", #"Error: manifests/invalid/size-fraction.json:5:27: files[0]: size must be a whole number of bytes, without fraction or exponent: "1.5""#),
        ("size-exponent.xml", #"Error: manifests/invalid/size-exponent.xml:3:3: <file>: size must be a whole number of bytes, without fraction or exponent: "1e3""#),
        ("size-exponent.json", #"Error: manifests/invalid/size-exponent.json:5:27: files[0]: size must be a whole number of bytes, without fraction or exponent: "1e3""#),
        ("size-plus-sign.xml", #"Error: manifests/invalid/size-plus-sign.xml:3:3: <file>: size must be a non-negative decimal integer: "+1""#),
        ("size-plus-sign.json", #"Error: manifests/invalid/size-plus-sign.json:5:27: files[0]: size is not a valid JSON number: "+1""#),
        ("size-string.json", #"Error: manifests/invalid/size-string.json:5:27: files[0]: size must be a JSON number, not a string"#),
        ("size-empty.xml", #"Error: manifests/invalid/size-empty.xml:3:3: <file>: size must not be empty"#),
        ("size-empty.json", #"Error: manifests/invalid/size-empty.json:5:27: files[0]: size must be a JSON number, not ",""#),
        ("size-missing.xml", #"Error: manifests/invalid/size-missing.xml:3:3: <file>: missing the required attribute size"#),
        ("size-missing.json", #"Error: manifests/invalid/size-missing.json:5:5: files[0]: missing the required key "size""#),

        // --- crc32 -----------------------------------------------------------------------------
        ("crc32-non-hex.xml", #"Error: manifests/invalid/crc32-non-hex.xml:3:3: <file>: crc32 must be hexadecimal (8 digits, no "0x"): "6a75c36g""#),
        ("crc32-non-hex.json", #"Error: manifests/invalid/crc32-non-hex.json:5:39: files[0]: crc32 must be hexadecimal (8 digits, no "0x"): "6a75c36g""#),
        ("chunks-bad-base64.xml", #"Error: manifests/invalid/chunks-bad-base64.xml:3:3: <file>: chunks list is not valid base64: character 28 is not a base64 digit: "4096,16384,65536:AAAAAQABAgMEBQYHCAkKCwwNDg8?""#),
        ("chunks-bad-base64.json", #"Error: manifests/invalid/chunks-bad-base64.json:6:16: files[0]: chunks list is not valid base64: character 28 is not a base64 digit: "4096,16384,65536:AAAAAQABAgMEBQYHCAkKCwwNDg8?""#),
        ("chunks-bad-sizes.xml", #"Error: manifests/invalid/chunks-bad-sizes.xml:3:3: <file>: chunks sizes must be minimum < average < maximum: "65536,16384,4096""#),
        ("chunks-bad-sizes.json", #"Error: manifests/invalid/chunks-bad-sizes.json:6:16: files[0]: chunks sizes must be minimum < average < maximum: "65536,16384,4096""#),
        ("chunks-lengths-not-size.xml", #"Error: manifests/invalid/chunks-lengths-not-size.xml:3:3: <file>: chunks lengths add up to 1 bytes, not the size 2: "4096,16384,65536:AAAAAQABAgMEBQYHCAkKCwwNDg8=""#),
        ("chunks-lengths-not-size.json", #"Error: manifests/invalid/chunks-lengths-not-size.json:6:16: files[0]: chunks lengths add up to 1 bytes, not the size 2: "4096,16384,65536:AAAAAQABAgMEBQYHCAkKCwwNDg8=""#),
        ("chunks-too-long.xml", #"Error: manifests/invalid/chunks-too-long.xml:3:3: <file>: chunks[0] is 70000 bytes long; a chunk must be 1 to 65536: "4096,16384,65536:AAERcAABAgMEBQYHCAkKCwwNDg8=""#),
        ("chunks-too-long.json", #"Error: manifests/invalid/chunks-too-long.json:6:16: files[0]: chunks[0] is 70000 bytes long; a chunk must be 1 to 65536: "4096,16384,65536:AAERcAABAgMEBQYHCAkKCwwNDg8=""#),
        ("crc32-7-digits.xml", #"Error: manifests/invalid/crc32-7-digits.xml:3:3: <file>: crc32 must be exactly 8 hex digits: "6a75c36""#),
        ("crc32-7-digits.json", #"Error: manifests/invalid/crc32-7-digits.json:5:39: files[0]: crc32 must be exactly 8 hex digits: "6a75c36""#),
        ("sha256-63-digits.xml", #"Error: manifests/invalid/sha256-63-digits.xml:3:3: <file>: sha256 must be exactly 64 hex digits: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa""#),
        ("sha256-63-digits.json", #"Error: manifests/invalid/sha256-63-digits.json:5:61: files[0]: sha256 must be exactly 64 hex digits: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa""#),
        ("sha256-non-hex.xml", #"Error: manifests/invalid/sha256-non-hex.xml:3:3: <file>: sha256 must be exactly 64 hex digits: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaag""#),
        ("sha256-non-hex.json", #"Error: manifests/invalid/sha256-non-hex.json:5:61: files[0]: sha256 must be exactly 64 hex digits: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaag""#),
        ("sha256-empty.xml", #"Error: manifests/invalid/sha256-empty.xml:3:3: <file>: sha256 must be exactly 64 hex digits: """#),
        ("sha256-empty.json", #"Error: manifests/invalid/sha256-empty.json:5:61: files[0]: sha256 must be exactly 64 hex digits: """#),
        ("sha256-number.json", #"Error: manifests/invalid/sha256-number.json:5:61: files[0]: sha256 must be a string, not a number"#),
        ("crc32-9-digits.xml", #"Error: manifests/invalid/crc32-9-digits.xml:3:3: <file>: crc32 must be exactly 8 hex digits: "6a75c3670""#),
        ("crc32-9-digits.json", #"Error: manifests/invalid/crc32-9-digits.json:5:39: files[0]: crc32 must be exactly 8 hex digits: "6a75c3670""#),
        ("crc32-over-32-bits.xml", #"Error: manifests/invalid/crc32-over-32-bits.xml:3:3: <file>: crc32 must be exactly 8 hex digits: "1ffffffff""#),
        ("crc32-over-32-bits.json", #"Error: manifests/invalid/crc32-over-32-bits.json:5:39: files[0]: crc32 must be exactly 8 hex digits: "1ffffffff""#),
        ("crc32-0x-prefix.xml", #"Error: manifests/invalid/crc32-0x-prefix.xml:3:3: <file>: crc32 must be hexadecimal (8 digits, no "0x"): "0x6a75c367""#),
        ("crc32-0x-prefix.json", #"Error: manifests/invalid/crc32-0x-prefix.json:5:39: files[0]: crc32 must be hexadecimal (8 digits, no "0x"): "0x6a75c367""#),
        ("crc32-empty.xml", #"Error: manifests/invalid/crc32-empty.xml:3:3: <file>: crc32 must be exactly 8 hex digits: """#),
        ("crc32-empty.json", #"Error: manifests/invalid/crc32-empty.json:5:39: files[0]: crc32 must be exactly 8 hex digits: """#),
        ("crc32-number.json", #"Error: manifests/invalid/crc32-number.json:5:39: files[0]: crc32 must be a string, not a number"#),

        // --- url, mirrors, base ----------------------------------------------------------------
        ("url-scheme-ftp.xml", #"Error: manifests/invalid/url-scheme-ftp.xml:3:3: <file>: url must use http, https or s3, not ftp: "ftp://files.example.com/a""#),
        ("url-scheme-ftp.json", #"Error: manifests/invalid/url-scheme-ftp.json:5:58: files[0]: url must use http, https or s3, not ftp: "ftp://files.example.com/a""#),
        ("url-scheme-file.xml", #"Error: manifests/invalid/url-scheme-file.xml:3:3: <file>: url must use http, https or s3, not file: "file:///etc/passwd""#),
        ("url-scheme-file.json", #"Error: manifests/invalid/url-scheme-file.json:5:58: files[0]: url must use http, https or s3, not file: "file:///etc/passwd""#),
        ("url-scheme-javascript.xml", #"Error: manifests/invalid/url-scheme-javascript.xml:3:3: <file>: url must use http, https or s3, not javascript: "javascript:alert(1)""#),
        ("url-scheme-javascript.json", #"Error: manifests/invalid/url-scheme-javascript.json:5:58: files[0]: url must use http, https or s3, not javascript: "javascript:alert(1)""#),
        ("url-crlf.xml", #"Error: manifests/invalid/url-crlf.xml:3:3: <file>: url must not contain spaces or control characters (such as CR or LF): "https://cdn.example.com/a\r\nX-Injected: 1""#),
        ("url-crlf.json", #"Error: manifests/invalid/url-crlf.json:5:58: files[0]: url must not contain spaces or control characters (such as CR or LF): "https://cdn.example.com/a\r\nX-Injected: 1""#),
        ("url-credentials.xml", #"Error: manifests/invalid/url-credentials.xml:3:3: <file>: url must not carry credentials; use --netrc or --header: "http://user:pw@host.example.com/a""#),
        ("url-credentials.json", #"Error: manifests/invalid/url-credentials.json:5:58: files[0]: url must not carry credentials; use --netrc or --header: "http://user:pw@host.example.com/a""#),
        ("url-relative-without-base.xml", #"Error: manifests/invalid/url-relative-without-base.xml:4:3: <file>: url is relative, but the manifest has no base: "c.zip""#),
        ("url-relative-without-base.json", #"Error: manifests/invalid/url-relative-without-base.json:5:5: files[1]: url is relative, but the manifest has no base: "c.zip""#),
        ("url-and-base-missing.xml", #"Error: manifests/invalid/url-and-base-missing.xml:4:3: <file>: has no url, and the manifest has no base to fetch it from"#),
        ("url-and-base-missing.json", #"Error: manifests/invalid/url-and-base-missing.json:5:5: files[1]: has no url, and the manifest has no base to fetch it from"#),
        ("mirror-scheme-ftp.xml", #"Error: manifests/invalid/mirror-scheme-ftp.xml:4:5: <file>: mirror url must use http, https or s3, not ftp: "ftp://mirror.example.com/a""#),
        ("mirror-scheme-ftp.json", #"Error: manifests/invalid/mirror-scheme-ftp.json:5:91: files[0]: mirrors[1] must use http, https or s3, not ftp: "ftp://mirror.example.com/a""#),
        ("manifest-mirror-after-file.xml", #"Error: manifests/invalid/manifest-mirror-after-file.xml:4:3: <mirror base> must come before the first <file> (a mirror of one file goes inside it)"#),
        ("manifest-mirror-no-trailing-slash.json", #"Error: manifests/invalid/manifest-mirror-no-trailing-slash.json:4:51: mirrors[1] must end with "/" (entries are fetched at mirrors[1] + path): "https://mirror.example.com/game""#),
        ("manifest-mirror-no-trailing-slash.xml", #"Error: manifests/invalid/manifest-mirror-no-trailing-slash.xml:3:3: mirror base must end with "/" (entries are fetched at mirror base + path): "https://mirror.example.com/game""#),
        ("manifest-mirror-scheme-ftp.json", #"Error: manifests/invalid/manifest-mirror-scheme-ftp.json:4:15: mirrors[0] must use http, https or s3, not ftp: "ftp://mirror.example.com/game/""#),
        ("manifest-mirror-scheme-ftp.xml", #"Error: manifests/invalid/manifest-mirror-scheme-ftp.xml:3:3: mirror base must use http, https or s3, not ftp: "ftp://mirror.example.com/game/""#),
        ("manifest-mirror-twice.json", #"Error: manifests/invalid/manifest-mirror-twice.json:4:51: mirrors[1] is listed twice (as the base or an earlier mirror): "https://mirror.example.com/game/""#),
        ("manifest-mirror-twice.xml", #"Error: manifests/invalid/manifest-mirror-twice.xml:3:3: mirror base is listed twice (as the base or an earlier mirror): "https://cdn.example.com/game/""#),
        ("manifest-mirror-url-attribute.xml", #"Error: manifests/invalid/manifest-mirror-url-attribute.xml:3:3: unknown attribute url on <mirror> (allowed: base)"#),
        ("manifest-mirror-without-base.json", #"Error: manifests/invalid/manifest-mirror-without-base.json:3:15: mirror bases need a base: they are alternatives to it"#),
        ("manifest-mirror-without-base.xml", #"Error: manifests/invalid/manifest-mirror-without-base.xml:3:3: mirror bases need a base: they are alternatives to it"#),
        ("manifest-mirrors-not-array.json", #"Error: manifests/invalid/manifest-mirrors-not-array.json:4:14: mirrors must be an array, not a string"#),
        ("base-no-trailing-slash.xml", #"Error: manifests/invalid/base-no-trailing-slash.xml:2:1: base must end with "/" (entries are fetched at base + path): "https://cdn.example.com/game""#),
        ("base-no-trailing-slash.json", #"Error: manifests/invalid/base-no-trailing-slash.json:3:11: base must end with "/" (entries are fetched at base + path): "https://cdn.example.com/game""#),
        ("base-scheme-ftp.xml", #"Error: manifests/invalid/base-scheme-ftp.xml:2:1: base must use http, https or s3, not ftp: "ftp://cdn.example.com/game/""#),
        ("base-scheme-ftp.json", #"Error: manifests/invalid/base-scheme-ftp.json:3:11: base must use http, https or s3, not ftp: "ftp://cdn.example.com/game/""#),

        // --- version ---------------------------------------------------------------------------
        ("version-2.xml", #"Error: manifests/invalid/version-2.xml:2:1: version 2 is not supported; this assetsync reads version 1"#),
        ("version-2.json", #"Error: manifests/invalid/version-2.json:2:14: version 2 is not supported; this assetsync reads version 1"#),
        ("version-missing.xml", #"Error: manifests/invalid/version-missing.xml:2:1: <manifest> is missing its version attribute"#),
        ("version-missing.json", #"Error: manifests/invalid/version-missing.json: the manifest has no version (expected 1)"#),
        ("version-string.json", #"Error: manifests/invalid/version-string.json:2:14: version must be a JSON number, not a string"#),

        // --- XML structure ---------------------------------------------------------------------
        ("unknown-element.xml", #"Error: manifests/invalid/unknown-element.xml:4:5: <file>: unknown element <checksum> in <file> (expected <mirror>)"#),
        ("unknown-element-top.xml", #"Error: manifests/invalid/unknown-element-top.xml:4:3: unknown element <files> in <manifest> (expected <file> or <mirror>)"#),
        ("root-element.xml", #"Error: manifests/invalid/root-element.xml:2:1: unknown element <files> as the root element (expected <manifest>)"#),
        ("unknown-attribute.xml", #"Error: manifests/invalid/unknown-attribute.xml:3:3: <file>: unknown attribute md5 on <file> (allowed: path, size, crc32, url, sha256, chunks)"#),
        ("unknown-attribute-manifest.xml", #"Error: manifests/invalid/unknown-attribute-manifest.xml:2:1: unknown attribute name on <manifest> (allowed: version, base)"#),
        ("duplicate-attribute.xml", #"Error: manifests/invalid/duplicate-attribute.xml:3:52: not well-formed XML: Attribute path redefined"#),
        // Text is refused at its first character, before libxml2 gathers it.
        ("unexpected-text.xml", #"Error: manifests/invalid/unexpected-text.xml:4:3: text is not allowed here; a manifest holds only elements and attributes"#),
        ("unexpected-text-in-file.xml", #"Error: manifests/invalid/unexpected-text-in-file.xml:3:44: text is not allowed here; a manifest holds only elements and attributes"#),
        ("trailing-element.xml", #"Error: manifests/invalid/trailing-element.xml:5:1: not well-formed XML: Extra content at the end of the document"#),
        ("not-well-formed.xml", #"Error: manifests/invalid/not-well-formed.xml:4:12: not well-formed XML: Opening and ending tag mismatch: file line 3 and manifest"#),
        ("undeclared-entity.xml", #"Error: manifests/invalid/undeclared-entity.xml:3:22: not well-formed XML: Entity 'nbsp' not defined"#),
        ("deep-nesting.xml", #"Error: manifests/invalid/deep-nesting.xml:3:82: <file>: unknown element <a> in <mirror> (expected nothing)"#),
        ("blank.xml", #"Error: manifests/invalid/blank.xml: the manifest is empty"#),

        // --- DOCTYPE and entities --------------------------------------------------------------
        ("doctype.xml", #"Error: manifests/invalid/doctype.xml:2:1: \#(doctypeRefused)"#),
        ("doctype-after-comment.xml", #"Error: manifests/invalid/doctype-after-comment.xml:3:1: \#(doctypeRefused)"#),
        ("xxe-file.xml", #"Error: manifests/invalid/xxe-file.xml:2:1: \#(doctypeRefused)"#),
        ("xxe-http.xml", #"Error: manifests/invalid/xxe-http.xml:2:1: \#(doctypeRefused)"#),
        ("xxe-parameter-entity.xml", #"Error: manifests/invalid/xxe-parameter-entity.xml:2:1: \#(doctypeRefused)"#),
        ("billion-laughs.xml", #"Error: manifests/invalid/billion-laughs.xml:2:1: \#(doctypeRefused)"#),
        ("quadratic-blowup.xml", #"Error: manifests/invalid/quadratic-blowup.xml:2:1: \#(doctypeRefused)"#),

        // --- JSON structure --------------------------------------------------------------------
        ("unknown-key.json", #"Error: manifests/invalid/unknown-key.json:5:51: files[0]: unknown key "md5" (allowed: path, size, crc32, url, mirrors, sha256, chunks)"#),
        ("unknown-key-top.json", #"Error: manifests/invalid/unknown-key-top.json:4:3: unknown key "name" (allowed: version, base, mirrors, files)"#),
        ("duplicate-key-top.json", #"Error: manifests/invalid/duplicate-key-top.json:4:3: duplicate key "base""#),
        ("duplicate-key-entry.json", #"Error: manifests/invalid/duplicate-key-entry.json:5:51: files[0]: duplicate key "path""#),
        ("duplicate-key-escaped.json", #"Error: manifests/invalid/duplicate-key-escaped.json:5:51: files[0]: duplicate key "path""#),
        ("deep-nesting.json", #"Error: manifests/invalid/deep-nesting.json:1:26: files[0]: each file must be an object, not an array"#),
        ("top-level-array.json", #"Error: manifests/invalid/top-level-array.json:1:1: the manifest must be a JSON object, not an array"#),
        ("files-missing.json", #"Error: manifests/invalid/files-missing.json: the manifest has no "files" array"#),
        ("files-not-array.json", #"Error: manifests/invalid/files-not-array.json:3:12: files must be an array, not an object"#),
        ("trailing-comma.json", #"Error: manifests/invalid/trailing-comma.json:6:3: files[1]: each file must be an object, not "]""#),
        ("trailing-data.json", #"Error: manifests/invalid/trailing-data.json:8:1: unexpected data after the manifest object"#),
        ("empty.json", #"Error: manifests/invalid/empty.json: the manifest is empty"#),

        // --- gzip ------------------------------------------------------------------------------
        ("gzip-truncated-trailer.xml.gz", #"Error: manifests/invalid/gzip-truncated-trailer.xml.gz: the gzip data is truncated"#),
        ("gzip-truncated-trailer.json.gz", #"Error: manifests/invalid/gzip-truncated-trailer.json.gz: the gzip data is truncated"#),
        ("gzip-truncated-data.xml.gz", #"Error: manifests/invalid/gzip-truncated-data.xml.gz: the gzip data is truncated"#),
        ("gzip-truncated-data.json.gz", #"Error: manifests/invalid/gzip-truncated-data.json.gz: the gzip data is truncated"#),
        ("gzip-trailing-garbage.xml.gz", #"Error: manifests/invalid/gzip-trailing-garbage.xml.gz: unexpected data after the end of the gzip stream"#),
        ("gzip-trailing-garbage.json.gz", #"Error: manifests/invalid/gzip-trailing-garbage.json.gz: unexpected data after the end of the gzip stream"#),
        ("gzip-bad-crc.xml.gz", #"Error: manifests/invalid/gzip-bad-crc.xml.gz: the gzip data is corrupt (incorrect data check)"#),
        ("gzip-bad-crc.json.gz", #"Error: manifests/invalid/gzip-bad-crc.json.gz: the gzip data is corrupt (incorrect data check)"#),
        // Comments are blanked before libxml2 sees them (its reader would keep each one in memory),
        // and a long run of blanks is refused before libxml2 gathers it into one node.
        ("gzip-bomb.xml.gz", #"Error: manifests/invalid/gzip-bomb.xml.gz:3:1048610: more than 1048576 bytes of white space and comments in a row"#),
        ("gzip-bomb.json.gz", #"Error: manifests/invalid/gzip-bomb.json.gz: the manifest is larger than the 256.0 MiB limit once decompressed"#),
        // --- an entry's proof: a CRC-32, a SHA-256 or both, never neither -----------------------
        ("crc32-and-sha256-missing.xml", #"Error: manifests/invalid/crc32-and-sha256-missing.xml:3:3: <file>: missing the required attribute crc32 (or sha256)"#),
        ("crc32-and-sha256-missing.json", #"Error: manifests/invalid/crc32-and-sha256-missing.json:5:5: files[0]: missing the required key "crc32" (or "sha256")"#),
        // --- Metalinks: each file refused by its name -------------------------------------------
        ("metalink-size-missing.meta4", #"Error: manifests/invalid/metalink-size-missing.meta4:3:3: <file> "example.iso": has no <size>; a Metalink must give each file's size"#),
        ("metalink-sha256-missing.meta4", #"Error: manifests/invalid/metalink-sha256-missing.meta4:3:3: <file> "example.iso": has no SHA-256 <hash>; a Metalink's files are proven by their SHA-256, which it must give"#),
        ("metalink3-sha256-missing.metalink", #"Error: manifests/invalid/metalink3-sha256-missing.metalink:4:3: <file> "repomd.xml": has no SHA-256 <hash>; a Metalink's files are proven by their SHA-256, which it must give"#),
        ("metalink-url-not-http.meta4", #"Error: manifests/invalid/metalink-url-not-http.meta4:3:3: <file> "example.iso": has no http or https <url> to fetch it from"#),
        ("metalink-name-dotdot.meta4", #"Error: manifests/invalid/metalink-name-dotdot.meta4:3:3: <file> "../../etc/cron.d/example": path must not have a "." or ".." component: "../../etc/cron.d/example""#),
        ("metalink-namespace-unknown.meta4", #"Error: manifests/invalid/metalink-namespace-unknown.meta4:2:1: <metalink> is in the namespace "urn:example:not-metalink", which is neither Metalink 4's (urn:ietf:params:xml:ns:metalink) nor Metalink 3's (http://www.metalinker.org/)"#),
        ("metalink-xxe-file.meta4", "Error: manifests/invalid/metalink-xxe-file.meta4:2:1: " + doctypeRefused),
    ]

    static let expectedStderr: [String: String] = Dictionary(
        expectations.map { ($0.fixture, $0.stderr) }, uniquingKeysWith: { first, _ in first })

    /// Files in `manifests/invalid/` that are not fixtures.
    static let notFixtures: Set<String> = ["make-generated.py", "README.md"]

    static var invalidDirectory: URL { AssetSyncBinary.packageRoot.appendingPathComponent("manifests/invalid") }

    @Test(arguments: InvalidManifestTests.expectations.map(\.fixture))
    func fixtureIsRefusedWithItsMessage(_ fixture: String) throws {
        let expected = try #require(Self.expectedStderr[fixture])
        let dest = try TemporaryDirectory()
        let result = try AssetSyncBinary.run(
            ["plan", "manifests/invalid/\(fixture)", "--dest", dest.path], directory: AssetSyncBinary.packageRoot)
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(result.stderr == expected + "\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dest.path) == [], "plan wrote into DEST")
    }

    /// GNU time, which reports a run's peak RSS.
    static let gnuTime = "/usr/bin/time"

    // Needs GNU time to learn the peak RSS; without it there is nothing to measure.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: gnuTime), "GNU time (/usr/bin/time) is not installed"),
          arguments: InvalidManifestTests.expectations.map(\.fixture))
    func fixtureIsRefusedInBoundedMemory(_ fixture: String) throws {
        let dest = try TemporaryDirectory()
        let scratch = try TemporaryDirectory()
        let report = scratch.path + "/rss"
        let result = try AssetSyncBinary.run(
            ["plan", "manifests/invalid/\(fixture)", "--dest", dest.path], directory: AssetSyncBinary.packageRoot,
            prefix: [Self.gnuTime, "--format=%M", "--output=\(report)"])
        #expect(result.status == 2)
        // GNU time writes "Command exited with non-zero status 2" before the number.
        let text = try String(contentsOfFile: report, encoding: .utf8)
        let peak = try #require(text.split(separator: "\n").last.flatMap { Int($0) }, "\(text)")
        #expect(peak <= Self.peakRSSLimitKiB, "peak RSS \(peak / 1024) MiB to refuse \(fixture)")
    }

    @Test func everyFixtureHasAnExpectation() throws {
        let files = Set(try FileManager.default.contentsOfDirectory(atPath: Self.invalidDirectory.path))
            .subtracting(Self.notFixtures)
        let listed = Set(Self.expectations.map(\.fixture))
        #expect(files.subtracting(listed).sorted() == [], "fixtures without an expected message in the table")
        #expect(listed.subtracting(files).sorted() == [], "expected messages without a fixture")
        #expect(listed.count == Self.expectations.count, "a fixture is listed twice")
        for name in files {
            let parts = name.split(separator: ".", omittingEmptySubsequences: false)
            let encoding = parts.count >= 2 ? parts[1] : ""
            let isNamedByRule = (parts.count == 2 || (parts.count == 3 && parts[2] == "gz"))
                && ["xml", "json", "meta4", "metalink"].contains(encoding) && !parts[0].isEmpty
            #expect(isNamedByRule, "\(name) is not named <rule>.<xml|json|meta4|metalink>[.gz]")
        }
        #expect(FileManager.default.fileExists(atPath: Self.invalidDirectory.appendingPathComponent("make-generated.py").path))
    }

    @Test(arguments: ["manifests/example.xml", "manifests/example.json"])
    func exampleIsAccepted(_ manifest: String) throws {
        let dest = try TemporaryDirectory()
        let result = try AssetSyncBinary.run(
            ["plan", manifest, "--dest", dest.path, "--json"], directory: AssetSyncBinary.packageRoot)
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(result.stdout.split(separator: "\n").count == 5)
    }

    @Test func bothExamplesGiveTheSamePlan() throws {
        let dest = try TemporaryDirectory()
        let plans = try ["xml", "json"].map { encoding in
            try AssetSyncBinary.run(
                ["plan", "manifests/example.\(encoding)", "--dest", dest.path, "--json"], directory: AssetSyncBinary.packageRoot)
        }
        #expect(plans.allSatisfy { $0.status == 0 && $0.stderr == "" })
        #expect(plans[0].stdout == plans[1].stdout)
    }

    /// `-` reads the manifest from standard input, plain or gzip-compressed (by its magic bytes),
    /// and gives the same plan as the file itself, as does a `.gz` copy of the file.
    @Test(arguments: ["example.xml", "example.json"])
    func standardInputAndGzipGiveTheSamePlan(_ name: String) throws {
        let dest = try TemporaryDirectory()
        let scratch = try TemporaryDirectory()
        let root = AssetSyncBinary.packageRoot
        let manifest = try Data(contentsOf: root.appendingPathComponent("manifests/\(name)"))
        let compressed = try #require(Self.gzip(manifest))
        #expect(compressed.starts(with: [0x1F, 0x8B]))
        let gzipPath = scratch.path + "/\(name).gz"
        try compressed.write(to: URL(fileURLWithPath: gzipPath))

        for format in [["--json"], []] {
            let fromFile = try AssetSyncBinary.run(["plan", "manifests/\(name)", "--dest", dest.path] + format, directory: root)
            #expect(fromFile.status == 0)
            #expect(fromFile.stderr == "")
            #expect(fromFile.stdout.contains("packs/level2.zip"))
            let runs = [
                ("stdin", try AssetSyncBinary.run(["plan", "-", "--dest", dest.path] + format, stdin: manifest)),
                ("gzip stdin", try AssetSyncBinary.run(["plan", "-", "--dest", dest.path] + format, stdin: compressed)),
                ("gzip file", try AssetSyncBinary.run(["plan", gzipPath, "--dest", dest.path] + format)),
            ]
            for (source, run) in runs {
                #expect(run.status == 0, "\(source) \(format)")
                #expect(run.stderr == "", "\(source) \(format)")
                #expect(run.stdout == fromFile.stdout, "\(source) \(format)")
            }
        }
    }

    /// `&amp;` is ordinary XML: the example's presigned URL (`…?X-Expires=…&amp;X-Signature=…`)
    /// is accepted, and so are predefined entities and character references in a path or URL.
    @Test func predefinedEntitiesAreOrdinaryXML() throws {
        let dest = try TemporaryDirectory()
        let example = try AssetSyncBinary.run(
            ["plan", "manifests/example.xml", "--dest", dest.path, "--json"], directory: AssetSyncBinary.packageRoot)
        #expect(example.status == 0)
        #expect(example.stderr == "")
        #expect(example.stdout.contains(#"{"type":"plan","action":"new","path":"packs/level2.zip","size":52428800}"#))

        let scratch = try TemporaryDirectory()
        try Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <manifest version="1" base="https://cdn.example.com/game/">
              <file path="R&amp;D/notes&#46;txt" size="7" crc32="00000000"
                    url="https://cdn.example.com/get?a=1&amp;b=2&#38;c=3&lt;"/>
            </manifest>

            """.utf8).write(to: scratch.url.appendingPathComponent("amp.xml"))
        let result = try AssetSyncBinary.run(["plan", "amp.xml", "--dest", dest.path, "--json"], directory: scratch.url)
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(result.stdout.hasPrefix(#"{"type":"plan","action":"new","path":"R&D/notes.txt","size":7}"#))
    }

    /// An external entity over HTTP to a live server on loopback: the manifest is refused at its
    /// DOCTYPE, and the server never sees a connection.
    @Test func externalEntityIsNeverFetched() throws {
        let server = try FaultServer()
        defer { server.stop() }
        let scratch = try TemporaryDirectory()
        let dest = try TemporaryDirectory()
        try Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE manifest [
              <!ENTITY xxe SYSTEM "\(server.url("xxe"))">
            ]>
            <manifest version="1" base="https://cdn.example.com/game/">
              <file path="a" size="1" crc32="00000000" url="https://cdn.example.com/&xxe;"/>
            </manifest>

            """.utf8).write(to: scratch.url.appendingPathComponent("xxe.xml"))

        let result = try AssetSyncBinary.run(["plan", "xxe.xml", "--dest", dest.path], directory: scratch.url)
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(result.stderr == "Error: xxe.xml:2:1: \(Self.doctypeRefused)\n")

        // A connection of the test's own, made after the run: once the server has accepted it, it has
        // accepted any the run made before (the backlog is served in order), so the count is exact.
        // It also shows that the server does count a connection: the check can fail.
        let client = try LoopbackSocket.connect(port: server.port)
        defer { close(client) }
        #expect(waitUntil { server.acceptedConnections >= 1 })
        #expect(server.acceptedConnections == 1, "the manifest's external entity was fetched")
        #expect(server.requests.isEmpty)
    }

    // MARK: - Helpers

    /// A gzip member of `data`, as `gzip -9` would write it.
    private static func gzip(_ data: Data) -> Data? {
        var stream = z_stream()
        guard deflateInit2_(
            &stream, Z_BEST_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY,
            ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK
        else { return nil }
        defer { deflateEnd(&stream) }
        var input = [UInt8](data)
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))) + 64)
        let (status, produced) = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                stream.next_in = inBuffer.baseAddress
                stream.avail_in = uInt(inBuffer.count)
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = uInt(outBuffer.count)
                let status = deflate(&stream, Z_FINISH)
                return (status, outBuffer.count - Int(stream.avail_out))
            }
        }
        return status == Z_STREAM_END ? Data(output[0..<produced]) : nil
    }
}
