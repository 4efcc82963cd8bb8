import AssetSyncModel

/// What assetsync reads in a signature's trusted comment: the version that orders manifests for
/// rollback protection and the expiry that stops a frozen one. Two forms, told apart by their start:
///
/// - assetsync's, `assetsync version=N expires=YYYY-MM-DDTHH:MM:SSZ file=NAME`: fields separated by
///   spaces (or tabs), the word `assetsync` first or absent, `version` required, each field at most
///   once, and no other. `file` is for people; its value is percent-encoded (`%XX` for each space,
///   `=`, `%`, control and non-ASCII byte), so that it holds no separator and no name can add or
///   change a field.
/// - minisign's own, `timestamp:N<TAB>file:NAME<TAB>hashed` (`hashed` absent from a legacy signature):
///   fields separated by tabs, NAME as minisign writes it (unencoded); its timestamp is the version, and
///   it never expires.
package struct TrustedComment: Equatable, Sendable {
    /// Larger is newer: a number the publisher increases, or a Unix time.
    package var version: UInt64
    /// Seconds since the epoch at which the signature stops being accepted; nil for never.
    package var expires: Int64?
    /// The name of the manifest that was signed, for people only: assetsync never compares it.
    package var file: String?

    package init(version: UInt64, expires: Int64?, file: String? = nil) {
        self.version = version
        self.expires = expires
        self.file = file
    }

    /// The fields of `text`, or why they cannot be read: no version, a malformed, repeated or unknown field.
    package init(parsing text: String) throws(MinisignFormatError) {
        if text.hasPrefix("timestamp:") {
            try self.init(minisignComment: text.dropFirst("timestamp:".count))
        } else {
            try self.init(assetsyncComment: text)
        }
    }

    /// assetsync's form (a `-t` comment given to minisign included).
    private init(assetsyncComment text: String) throws(MinisignFormatError) {
        var fields = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
        if fields.first == "assetsync" { fields.removeFirst() }
        var version: UInt64?
        var expires: Int64?
        var file: String?
        var seen: Set<Substring> = []
        for field in fields {
            guard let equals = field.firstIndex(of: "=") else { throw Self.unknown(field) }
            let name = field[..<equals]
            let value = field[field.index(after: equals)...]
            guard seen.insert(name).inserted else { throw Self.repeated(String(name) + "=") }
            switch name {
            case "version":
                guard let number = UInt64(value) else {
                    throw MinisignFormatError("its \"version=\" must be a whole number, not \(QuotedValue.quote(String(value)))")
                }
                version = number
            case "expires":
                guard let instant = UTCTime.parse(value) else {
                    throw MinisignFormatError("its \"expires=\" must be a UTC time such as 2026-12-31T00:00:00Z, not \(QuotedValue.quote(String(value)))")
                }
                expires = instant
            case "file":
                file = Self.decoded(value)
            default:
                throw Self.unknown(field)
            }
        }
        guard let version else {
            throw MinisignFormatError("it carries no version (\"version=N\", or minisign's \"timestamp:N\")")
        }
        self.init(version: version, expires: expires, file: file)
    }

    /// minisign's form, after its `timestamp:`: fields separated by tabs, `file:` and `hashed` at most once each.
    private init(minisignComment text: Substring) throws(MinisignFormatError) {
        var fields = text.split(separator: "\t", omittingEmptySubsequences: false)
        guard let version = UInt64(fields.removeFirst()) else {
            throw MinisignFormatError("its \"timestamp:\" must be a whole number, not \(QuotedValue.quote(String(text.prefix { $0 != "\t" })))")
        }
        var file: String?
        var hashed = false
        for field in fields {
            if field.hasPrefix("file:") {
                guard file == nil else { throw Self.repeated("file:") }
                file = String(field.dropFirst("file:".count))
            } else if field == "hashed" {
                guard !hashed else { throw Self.repeated("hashed") }
                hashed = true
            } else {
                throw Self.unknown(field)
            }
        }
        self.init(version: version, expires: nil, file: file)
    }

    private static func repeated(_ name: String) -> MinisignFormatError {
        MinisignFormatError("its field \(QuotedValue.quote(name)) appears more than once: which one would count?")
    }

    private static func unknown(_ field: Substring) -> MinisignFormatError {
        MinisignFormatError(
            "it has the unknown field \(QuotedValue.quote(String(field))): assetsync's comment holds only version=, expires= and "
                + "file=, each once (minisign's own: timestamp:, file: and hashed)")
    }

    /// The comment assetsync signs: its fields, `file` last and encoded.
    package var text: String {
        var text = "assetsync version=\(version)"
        if let expires { text += " expires=" + UTCTime.format(expires) }
        if let file, !file.isEmpty { text += " file=" + Self.encoded(file) }
        return text
    }

    /// `name` with each space, `=`, `%`, control and non-ASCII byte written `%XX` (uppercase hex).
    private static func encoded(_ name: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        for byte in name.utf8 {
            if byte <= 0x20 || byte >= 0x7F || byte == UInt8(ascii: "=") || byte == UInt8(ascii: "%") {
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The name `value` encodes: each `%XX` (two hex digits) is the byte XX, anything else itself, so that a
    /// name an earlier version wrote unencoded (a `%` not followed by two hex digits) still reads.
    private static func decoded(_ value: Substring) -> String {
        let bytes = Array(value.utf8)
        var decoded: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
               let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) {
                decoded.append(high << 4 | low)
                index += 3
            } else {
                decoded.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: decoded, as: UTF8.self)
    }

    /// The value of one hex digit, either case; nil for any other byte.
    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
