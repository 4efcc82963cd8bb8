import AssetSyncManifestIO
package import AssetSyncModel
import AssetSyncSystem
import AssetSyncTransfer
import Glibc

/// A prefix of an S3-compatible bucket described as a manifest without downloading what the store
/// already has a CRC-32 of: the keys listed a page (at most 1,000) at a time with ListObjectsV2,
/// each object's stored checksum asked with GetObjectAttributes, and an object with none (or with
/// only a multipart upload's checksum of its parts' checksums) streamed once and hashed.
package struct BucketDescription {
    /// Why a step failed, in the words of its callers.
    package struct Failure: ExplainedError, CustomStringConvertible {
        package var description: String
        package var kind: ErrorKind
        package var remedy: Remedy? { nil }
    }

    let bucket: String
    /// The keys' common prefix, ending in "/" (or empty: the whole bucket).
    let prefix: String
    let base: String
    let withSHA256: Bool
    let options: TransferOptions
    let stop: StopSource
    let temporaryDirectory: String

    /// - Parameters:
    ///   - location: `s3://BUCKET/PREFIX` (a "/" added to a prefix without one).
    ///   - base: where the manifest's files are fetched; nil: `location` itself.
    ///   - options: the transfers', with `objectStore` the bucket's store.
    package init?(
        location: String, base: String?, withSHA256: Bool, options: TransferOptions, stop: StopSource, temporaryDirectory: String
    ) {
        guard let named = S3Location(location) else { return nil }
        bucket = named.bucket
        prefix = named.key.isEmpty || named.key.hasSuffix("/") ? named.key : named.key + "/"
        let own = "s3://\(bucket)/" + URLRules.percentEncodedPath(prefix)
        self.base = base.map { $0.hasSuffix("/") ? $0 : $0 + "/" } ?? own
        self.withSHA256 = withSHA256
        self.options = options
        self.stop = stop
        self.temporaryDirectory = temporaryDirectory
    }

    /// The manifest, its entries in path order, and how each was described.
    package func describe() throws(PublishFailure) -> (manifest: Manifest, tally: BucketTally) {
        var builder = ManifestBuilder(manifestName: "the base URL", style: .xml)
        do { try builder.setBase(base, at: SourcePosition(line: 1, column: 1)) } catch { throw .invalidBase(error) }
        var tally = BucketTally()
        var entries: [ManifestEntry] = []
        var token: String?
        repeat {
            let page = try listed(after: token)
            for object in page.objects {
                let path = String(object.key.dropFirst(prefix.count))
                if object.key.hasSuffix("/"), object.size == 0 {
                    tally.folders += 1
                    continue
                }
                do throws(RuleViolation) { _ = try ManifestRules.path(path) } catch {
                    throw .bucket(location, Failure(
                        description: "the key \(QuotedValue.quote(object.key)) cannot be listed in a manifest as \(QuotedValue.quote(path)): \(error.problem)",
                        kind: .invalidInput))
                }
                entries.append(try entry(for: object, path: path, tally: &tally))
            }
            token = page.continuationToken
        } while token != nil
        entries.sort { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
        return (Manifest(base: base, entries: entries), tally)
    }

    /// `s3://BUCKET/PREFIX/`, for messages.
    package var location: String { "s3://\(bucket)/\(prefix)" }

    /// The listing's page after `token` (the first without one).
    private func listed(after token: String?) throws(PublishFailure) -> BucketListingPage {
        var query = "list-type=2&max-keys=1000&prefix=" + URLRules.percentEncodedPath(prefix).replacing("/", with: "%2F")
        if let token { query += "&continuation-token=" + URLRules.percentEncodedPath(token).replacing("/", with: "%2F") }
        let url = "s3://\(bucket)/?" + query
        let copy = try fetched(url, limit: BucketListingPage.sizeLimit, options: options)
        do { return try BucketListingPage.read(path: copy.path, name: "the listing of \(location)") } catch {
            throw .bucket(location, Failure(description: error.description, kind: .remote))
        }
    }

    /// The entry for `object`: its stored CRC-32 when the store keeps one of the whole object (and no
    /// SHA-256 is asked for), else the checksums of its bytes, streamed once.
    private func entry(for object: BucketListingPage.Object, path: String, tally: inout BucketTally) throws(PublishFailure) -> ManifestEntry {
        let url = "s3://\(bucket)/" + URLRules.percentEncodedPath(object.key)
        if !withSHA256 {
            let attributes = try self.attributes(of: url)
            if let crc32 = attributes.fileCRC32, attributes.size == object.size {
                tally.storedCRC32 += 1
                return ManifestEntry(path: path, size: object.size, crc32: crc32)
            }
            if attributes.crc32Base64 != nil, ObjectAttributes.isMultipart(attributes.etag) || attributes.checksumType == "COMPOSITE" {
                tally.multipart += 1
            }
        }
        tally.hashed += 1
        let copy = try fetched(url, limit: object.size, options: options)
        let sums: (size: Int64, checksums: FileChecksums)
        do throws(SystemError) {
            sums = try Self.checksums(of: copy.path, withSHA256: withSHA256)
        } catch {
            throw .bucket(location, Failure(description: "\(url): \(error.reason)", kind: .localIO))
        }
        guard sums.size == object.size else {
            throw .bucket(location, Failure(
                description: "\(url) was listed with \(object.size) bytes but answered with \(sums.size): it changed while it was described",
                kind: .remote))
        }
        return ManifestEntry(path: path, size: object.size, crc32: sums.checksums.crc32, sha256: sums.checksums.sha256)
    }

    /// The size and checksums of the file at `path`, read once.
    private static func checksums(of path: String, withSHA256: Bool) throws(SystemError) -> (size: Int64, checksums: FileChecksums) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError("open") }
        defer { close(fd) }
        let size = Int64(try FileDescriptor(fd, path: path).status().st_size)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 4096)
        defer { buffer.deallocate() }
        return (size, try FileChecksums.of(fd: fd, length: size, withSHA256: withSHA256, buffer: buffer, path: path))
    }

    /// What GetObjectAttributes says of the object at `url`.
    private func attributes(of url: String) throws(PublishFailure) -> ObjectAttributes {
        var asking = options
        asking.headers = ["x-amz-object-attributes: ETag,Checksum,ObjectSize"]
        // The header goes to the store alone, as its key does.
        asking.credentialScope = CredentialScope()
        if let store = options.objectStore, let target = S3Location.requestURL(for: url, at: store) { asking.credentialScope.admit(originOf: target) }
        let copy = try fetched(url + "?attributes", limit: ObjectAttributes.sizeLimit, options: asking)
        do { return try ObjectAttributes.read(path: copy.path, name: "the attributes of \(url)") } catch {
            throw .bucket(location, Failure(description: error.description, kind: .remote))
        }
    }

    /// `url`'s answer in a temporary file, at most `limit` bytes.
    private func fetched(_ url: String, limit: Int64, options: TransferOptions) throws(PublishFailure) -> TemporaryFile {
        guard let temporary = TemporaryFile(in: temporaryDirectory, prefix: "assetsync-bucket") else {
            throw .unwritable(temporaryDirectory, SystemError("mkstemp"))
        }
        do {
            _ = try ManifestFetcher(options: options, sizeLimit: max(limit, 1), stop: stop).fetch(url, into: ManifestFile(path: temporary.path))
        } catch {
            if stop.isRequested() { throw .interrupted }
            throw .bucket(location, Failure(description: "cannot fetch \(url): \(error.description)", kind: .remote))
        }
        return temporary
    }
}

extension BucketDescription {
    /// Describes `location` (`s3://BUCKET/PREFIX`) under `base` (nil: `location`), its store resolved
    /// from `objectStorage` over the AWS conventions.
    package static func describe(
        _ location: String, base: String?, withSHA256: Bool, options: TransferOptions, objectStorage: ObjectStorageRequest,
        stop: StopSource, temporaryDirectory: String
    ) throws(PublishFailure) -> (manifest: Manifest, tally: BucketTally) {
        var options = options
        do { options.objectStore = try S3Settings.access(for: objectStorage) } catch { throw .objectStore(error) }
        guard let description = BucketDescription(
            location: location, base: base, withSHA256: withSHA256, options: options, stop: stop, temporaryDirectory: temporaryDirectory)
        else {
            throw .bucket(location, Failure(description: "not an s3://BUCKET/PREFIX URL with a valid bucket name", kind: .invalidInput))
        }
        return try description.describe()
    }
}
