/// The one notion of path equality: canonical Unicode equivalence, as Swift's `String`
/// `==` and hashing have it, so that "café" spelled NFC and NFD is one path everywhere
/// (manifest rules, dictionaries, partial names).
///
/// An ASCII path is its own canonical form, so the common case costs one pass over its
/// bytes; only other paths are normalized, with the standard library's own NFC (the one
/// `String` compares and hashes with), never a second implementation that could disagree.
package enum CanonicalPath {
    /// Whether every byte is ASCII, eight bytes at a time.
    @inline(__always)
    package static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        let count = bytes.count
        let raw = UnsafeRawBufferPointer(bytes)
        while index + 8 <= count {
            if raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            index += 8
        }
        while index < count {
            if bytes[index] >= 0x80 { return false }
            index += 1
        }
        return true
    }

    /// `path` in NFC when it is not ASCII; nil when it is, and so already canonical.
    static func nonASCIIForm(of path: String) -> String? {
        var path = path
        if path.withUTF8(isASCII) { return nil }
        return String(decoding: path._nfcCodeUnits, as: UTF8.self)
    }

    /// Calls `body` with the UTF-8 bytes of `path`'s canonical form.
    package static func withBytes<R>(of path: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        var form = nonASCIIForm(of: path) ?? path
        return form.withUTF8(body)
    }
}
