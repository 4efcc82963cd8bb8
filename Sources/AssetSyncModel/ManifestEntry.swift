/// One file of a manifest. Every field has passed `ManifestRules`.
///
/// An entry holds its path, size and CRC-32 inline and the fields most entries leave out (their own
/// URL, mirrors, SHA-256 and chunks) in one shared box, nil when all are absent: 40 bytes an entry
/// instead of 72, which a million-entry manifest feels.
///
/// An entry gives a CRC-32, a SHA-256 or both: the readers refuse one with neither.
package struct ManifestEntry: Equatable, Sendable {
    /// Relative, "/"-separated place under the cache directory.
    package var path: String
    package var size: Int64
    /// The CRC-32's value; meaningful only while `hasCRC32`.
    private var crc32Value: UInt32
    /// Whether the manifest gives a CRC-32: a flag beside `crc32Value`, so that an optional takes no room.
    private var hasCRC32: Bool
    /// Whether `url` was written relative to the manifest's base (it holds it resolved): when it
    /// lies under `base`, the manifest's mirror bases serve it too. Beside `crc32Value`, it takes no room.
    package var urlIsRelative: Bool
    private var extras: RareFields<Extras>?

    package init(
        path: String, size: Int64, crc32: UInt32?, sha256: SHA256Digest? = nil, url: String? = nil, urlIsRelative: Bool = false,
        mirrors: [String] = [], chunks: ChunkList? = nil
    ) {
        self.path = path
        self.size = size
        self.crc32Value = crc32 ?? 0
        self.hasCRC32 = crc32 != nil
        self.urlIsRelative = urlIsRelative
        self.extras = RareFields.make(Extras(url: url, mirrors: mirrors, sha256: sha256, chunks: chunks), empty: Extras())
    }

    /// The file's CRC-32, nil when the manifest gives only a SHA-256 (a Metalink, say).
    package var crc32: UInt32? {
        get { hasCRC32 ? crc32Value : nil }
        set {
            crc32Value = newValue ?? 0
            hasCRC32 = newValue != nil
        }
    }

    /// An absolute http(s) URL, or nil to use the manifest's base plus the path.
    package var url: String? {
        get { extras?.fields.url }
        set { change { $0.url = newValue } }
    }

    /// Absolute http(s) URLs tried in order after the primary one fails.
    package var mirrors: [String] {
        get { extras?.fields.mirrors ?? [] }
        set { change { $0.mirrors = newValue } }
    }

    /// The file's SHA-256, when the manifest gives one: then it is the proof, the CRC-32 a cheap first check.
    package var sha256: SHA256Digest? {
        get { extras?.fields.sha256 }
        set { change { $0.sha256 = newValue } }
    }

    /// The file's content-defined chunks, for a delta from an old version; nil without.
    package var chunks: ChunkList? {
        get { extras?.fields.chunks }
        set { change { $0.chunks = newValue } }
    }

    /// Sets one of the boxed fields.
    private mutating func change(_ body: (inout Extras) -> Void) {
        extras = RareFields.changing(extras, empty: Extras(), body)
    }

    /// The fields most entries leave out.
    private struct Extras: Equatable, Sendable {
        var url: String?
        var mirrors: [String] = []
        var sha256: SHA256Digest?
        var chunks: ChunkList?
    }
}
