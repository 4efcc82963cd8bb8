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
    /// What the reader left out that the user should hear of (a Metalink's pieces, metaurls and
    /// urls of other schemes), each told once as a warning by pull, plan and verify.
    package var notes: [String]

    package init(
        version: Int = Manifest.supportedVersion, base: String?, mirrors: [String] = [], entries: [ManifestEntry], notes: [String] = []
    ) {
        self.version = version
        self.base = base
        self.mirrors = mirrors
        self.entries = entries
        self.notes = notes
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

    /// Whether any URL of the manifest is an object store's (`s3://`): its base, a mirror base, an
    /// entry's url or one of its mirrors.
    package var namesObjectStore: Bool {
        ([base].compactMap { $0 } + mirrors).contains(where: URLRules.isObjectStoreURL)
            || entries.contains { entry in
                entry.url.map(URLRules.isObjectStoreURL) == true || entry.mirrors.contains(where: URLRules.isObjectStoreURL)
            }
    }

    /// The sum of every entry's size.
    package var totalBytes: Int64 { entries.lazy.map(\.size).saturatingSum() }
}
