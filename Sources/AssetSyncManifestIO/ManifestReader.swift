package import AssetSyncModel

/// Reads and validates a manifest from a file or an open descriptor, choosing
/// XML or JSON by its first significant byte and inflating gzip on the way.
package enum ManifestReader {
    /// The largest manifest accepted, counted after decompression.
    package static let sizeLimit = Manifest.sizeLimit

    /// Sets libxml2 up, once: a program calls it before it starts threads that read manifests, so
    /// that the set-up does not happen on whichever thread reads first.
    package static func prepare() { XMLManifestReader.prepare() }

    /// The version of libxml2 the XML reader was built against.
    package static var libxml2Version: String { XMLManifestReader.libxml2Version }

    /// Reads `path`; throws a `ManifestError` naming what is wrong.
    /// A fetched manifest is read from its local copy but named by its URL (`displayName`).
    package static func read(
        path: String, displayName: String? = nil, sizeLimit: Int64 = ManifestReader.sizeLimit
    ) throws(ManifestError) -> Manifest {
        try read(ManifestInput(path: path, displayName: displayName, limit: sizeLimit))
    }

    /// Reads the open descriptor `fd` (left open), named `name` in errors.
    package static func read(descriptor fd: Int32, name: String, sizeLimit: Int64 = ManifestReader.sizeLimit) throws(ManifestError) -> Manifest {
        try read(ManifestInput(descriptor: fd, owned: false, name: name, limit: sizeLimit))
    }

    private static func read(_ input: ManifestInput) throws(ManifestError) -> Manifest {
        switch try input.firstSignificantByte() {
        case UInt8(ascii: "<"):
            return try XMLManifestReader.read(input)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            return try JSONManifestReader.read(input)
        case nil:
            throw ManifestError(manifest: input.name, problem: "the manifest is empty")
        default:
            throw ManifestError(
                manifest: input.name,
                problem: "not a manifest: it must be XML (starting with \"<\") or JSON (starting with \"{\"), "
                    + "optionally gzip-compressed")
        }
    }
}
