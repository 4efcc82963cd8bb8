/// A validated manifest: the files the cache directory must hold.
public struct Manifest: Equatable, Sendable {
    /// The largest manifest accepted, counted after decompression.
    public static let sizeLimit: Int64 = 256 << 20

    /// The only manifest version this build reads.
    public static let supportedVersion = 1

    public var version: Int
    /// The URL that entries without their own `url` are fetched under, ending in "/".
    public var base: String?
    public var entries: [ManifestEntry]

    public init(version: Int = Manifest.supportedVersion, base: String?, entries: [ManifestEntry]) {
        self.version = version
        self.base = base
        self.entries = entries
    }

    /// The URLs to try for `entry`, in order: its own (or `base` + its path), then its mirrors.
    public func sources(of entry: ManifestEntry) -> [String] {
        let primary = entry.url ?? (base ?? "") + URLRules.percentEncodedPath(entry.path)
        return [primary] + entry.mirrors
    }

    /// The sum of every entry's size.
    public var totalBytes: Int64 { entries.lazy.map(\.size).saturatingSum() }
}

/// One file of a manifest. Every field has passed `ManifestRules`.
public struct ManifestEntry: Equatable, Sendable {
    /// Relative, "/"-separated place under the cache directory.
    public var path: String
    public var size: Int64
    public var crc32: UInt32
    /// An absolute http(s) URL, or nil to use the manifest's base plus the path.
    public var url: String?
    /// Absolute http(s) URLs tried in order after the primary one fails.
    public var mirrors: [String]

    public init(path: String, size: Int64, crc32: UInt32, url: String? = nil, mirrors: [String] = []) {
        self.path = path
        self.size = size
        self.crc32 = crc32
        self.url = url
        self.mirrors = mirrors
    }
}
