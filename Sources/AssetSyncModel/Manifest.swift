/// A validated manifest: the files the cache directory must hold.
package struct Manifest: Equatable, Sendable {
    /// The largest manifest accepted, counted after decompression.
    package static let sizeLimit: Int64 = 256 << 20

    /// The only manifest version this build reads.
    package static let supportedVersion = 1

    package var version: Int
    /// The URL that entries without their own `url` are fetched under, ending in "/".
    package var base: String?
    /// Alternatives to `base`, each ending in "/": every entry whose URL is relative to `base` is
    /// also served at each of them + the same relative part.
    package var mirrors: [String]
    package var entries: [ManifestEntry]

    package init(version: Int = Manifest.supportedVersion, base: String?, mirrors: [String] = [], entries: [ManifestEntry]) {
        self.version = version
        self.base = base
        self.mirrors = mirrors
        self.entries = entries
    }

    /// The sources to try for `entry`, in order: its own URL (or `base` + its percent-encoded path),
    /// then its own mirrors, then, when its URL is relative to `base`, each manifest mirror base +
    /// the same relative part; a source that is an earlier one under another spelling is left out.
    /// A URL relative to a base counts under that base; any other, under its scheme, host and port.
    package func sources(of entry: ManifestEntry) -> [DownloadSource] {
        var sources: [DownloadSource] = []
        sources.reserveCapacity(1 + entry.mirrors.count + mirrors.count)
        var relative: Substring?
        if let url = entry.url {
            let underBase = entry.urlIsRelative ? base.flatMap { URLRules.relativePart(of: url, under: $0) } : nil
            sources.append(underBase == nil ? DownloadSource(url: url) : DownloadSource(url: url, origin: base!))
            relative = underBase
        } else {
            let path = URLRules.percentEncodedPath(entry.path)
            sources.append(DownloadSource(url: (base ?? "") + path, origin: base ?? ""))
            relative = Substring(path)
        }
        sources += entry.mirrors.map { DownloadSource(url: $0) }
        if let relative {
            sources += mirrors.map { DownloadSource(url: $0 + relative, origin: $0) }
        }
        return Self.distinct(sources)
    }

    /// `sources` without those that are an earlier one under another spelling (compared as
    /// `URLRules.normalized` spells them): an entry's own mirror that is also a mirror base + its
    /// relative part is asked once, as the first of them. The readers refuse the other repeats.
    static func distinct(_ sources: [DownloadSource]) -> [DownloadSource] {
        guard sources.count > 1 else { return sources }
        var seen = Set<String>()
        return sources.filter { seen.insert(URLRules.normalized($0.url) ?? $0.url).inserted }
    }

    /// The sum of every entry's size.
    package var totalBytes: Int64 { entries.lazy.map(\.size).saturatingSum() }
}

/// One file of a manifest. Every field has passed `ManifestRules`.
package struct ManifestEntry: Equatable, Sendable {
    /// Relative, "/"-separated place under the cache directory.
    package var path: String
    package var size: Int64
    package var crc32: UInt32
    /// Whether `url` was written relative to the manifest's base (it holds it resolved): when it
    /// lies under `base`, the manifest's mirror bases serve it too. Beside `crc32`, it takes no room.
    package var urlIsRelative: Bool
    /// An absolute http(s) URL, or nil to use the manifest's base plus the path.
    package var url: String?
    /// Absolute http(s) URLs tried in order after the primary one fails.
    package var mirrors: [String]
    /// The file's SHA-256, when the manifest gives one: then it is the proof, the CRC-32 a cheap first check.
    package var sha256: SHA256Digest? {
        get { sha256Bytes.map { $0.withUnsafeBytes { SHA256Digest(bytes: $0) } } }
        set { sha256Bytes = newValue?.bytes }
    }
    /// The SHA-256's bytes, out of line: one word in every entry, where the digest would take five
    /// in entries of manifests that mostly have none.
    private var sha256Bytes: [UInt8]?
    /// The file's content-defined chunks, for a delta from an old version; nil without.
    package var chunks: ChunkList?

    package init(
        path: String, size: Int64, crc32: UInt32, sha256: SHA256Digest? = nil, url: String? = nil, urlIsRelative: Bool = false,
        mirrors: [String] = [], chunks: ChunkList? = nil
    ) {
        self.chunks = chunks
        self.path = path
        self.size = size
        self.crc32 = crc32
        self.sha256Bytes = sha256?.bytes
        self.urlIsRelative = urlIsRelative
        self.url = url
        self.mirrors = mirrors
    }
}
