/// What assetsync reads in a signature's trusted comment: the version that orders manifests for
/// rollback protection and the expiry that stops a frozen one.
///
/// assetsync writes `assetsync version=N expires=YYYY-MM-DDTHH:MM:SSZ file=NAME`, fields separated by
/// spaces (`expires` only when given; `file` last, and only for people). Of minisign's own comment
/// (`timestamp:N<TAB>file:NAME<TAB>hashed`) the timestamp is the version, and it never expires.
package struct TrustedComment: Equatable, Sendable {
    /// Larger is newer: a number the publisher increases, or a Unix time.
    package var version: UInt64
    /// Seconds since the epoch at which the signature stops being accepted; nil for never.
    package var expires: Int64?

    package init(version: UInt64, expires: Int64?) {
        self.version = version
        self.expires = expires
    }

    /// The fields of `text`, or why they cannot be read: no version, or a malformed one.
    package init(parsing text: String) throws(MinisignFormatError) {
        var version: UInt64?
        var timestamp: UInt64?
        var expires: Int64?
        for field in text.split(whereSeparator: { $0 == " " || $0 == "\t" }) {
            if field.hasPrefix("version=") {
                guard version == nil, let value = UInt64(field.dropFirst("version=".count)) else {
                    throw MinisignFormatError("its \"version=\" must be one whole number")
                }
                version = value
            } else if field.hasPrefix("expires=") {
                guard expires == nil, let value = UTCTime.parse(field.dropFirst("expires=".count)) else {
                    throw MinisignFormatError("its \"expires=\" must be one UTC time such as 2026-12-31T00:00:00Z")
                }
                expires = value
            } else if field.hasPrefix("timestamp:") {
                timestamp = UInt64(field.dropFirst("timestamp:".count))
            }
        }
        guard let chosen = version ?? timestamp else {
            throw MinisignFormatError("it carries no version (\"version=N\", or minisign's \"timestamp:N\")")
        }
        self.init(version: chosen, expires: expires)
    }

    /// The comment assetsync signs, naming the manifest `file` for people.
    package func text(file: String) -> String {
        var text = "assetsync version=\(version)"
        if let expires { text += " expires=" + UTCTime.format(expires) }
        let name = String(file.map { $0.isNewline ? " " : $0 })
        return name.isEmpty ? text : text + " file=" + name
    }
}
