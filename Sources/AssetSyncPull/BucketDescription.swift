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

    /// The bytes of objects streamed into temporary files at once, to be hashed: a group is fetched
    /// together (`options.jobs` at a time), and removed once hashed, before the next.
    static let hashGroupBytes: Int64 = 256 << 20

    /// The manifest, its entries in path order, and how each was described.
    package func describe() throws(PublishFailure) -> (manifest: Manifest, tally: BucketTally) {
        var builder = ManifestBuilder(manifestName: "the base URL", style: .xml)
        let start = SourcePosition(line: 1, column: 1)
        do throws(ManifestError) {
            try builder.setVersion("\(Manifest.supportedVersion)", at: start)
            try builder.setBase(base, at: start)
        } catch {
            throw .invalidBase(error)
        }
        var tally = BucketTally()
        var entries: [ManifestEntry] = []
        var token: String?
        repeat {
            let page = try listed(after: token)
            var objects: [(object: BucketListingPage.Object, path: String, url: String)] = []
            for object in page.objects {
                if object.key.hasSuffix("/"), object.size == 0 {
                    tally.folders += 1
                    continue
                }
                let path = String(object.key.dropFirst(prefix.count))
                do throws(RuleViolation) { _ = try ManifestRules.path(path) } catch {
                    throw .bucket(location, Failure(
                        description: "the key \(QuotedValue.quote(object.key)) cannot be listed in a manifest as \(QuotedValue.quote(path)): \(error.problem)",
                        kind: .invalidInput))
                }
                objects.append((object, path, "s3://\(bucket)/" + URLRules.percentEncodedPath(object.key)))
            }
            let stored = withSHA256 ? objects.map { _ in nil } : try storedCRC32s(of: objects.map { ($0.object, $0.url) }, tally: &tally)
            var unsummed: [(object: BucketListingPage.Object, path: String, url: String)] = []
            for (index, described) in objects.enumerated() {
                guard let crc32 = stored[index] else {
                    unsummed.append(described)
                    continue
                }
                tally.storedCRC32 += 1
                entries.append(ManifestEntry(path: described.path, size: described.object.size, crc32: crc32))
            }
            tally.hashed += unsummed.count
            var group: [(object: BucketListingPage.Object, path: String, url: String)] = []
            var groupBytes: Int64 = 0
            for (index, described) in unsummed.enumerated() {
                group.append(described)
                groupBytes += described.object.size
                guard groupBytes >= Self.hashGroupBytes || index == unsummed.count - 1 else { continue }
                entries += try hashed(group)
                group = []
                groupBytes = 0
            }
            token = page.continuationToken
        } while token != nil
        entries.sort { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
        // What spans keys: S3 has "a" and "a/b", or a name in NFC and NFD, side by side; a manifest cannot.
        for entry in entries { builder.add(entry, urlsAreAbsolute: true, at: start) }
        do { return (try builder.finish(), tally) } catch {
            throw .bucket(location, Failure(
                description: "the keys cannot be listed in one manifest: \(error.problem)\(error.value.map { ": " + $0 } ?? "")", kind: .invalidInput))
        }
    }

    /// `s3://BUCKET/PREFIX/`, for messages.
    package var location: String { "s3://\(bucket)/\(prefix)" }

    /// The listing's page after `token` (the first without one).
    private func listed(after token: String?) throws(PublishFailure) -> BucketListingPage {
        var query = "list-type=2&max-keys=1000&prefix=" + URLRules.percentEncodedPath(prefix).replacing("/", with: "%2F")
        if let token { query += "&continuation-token=" + URLRules.percentEncodedPath(token).replacing("/", with: "%2F") }
        let copies = try fetched([("s3://\(bucket)/?" + query, BucketListingPage.sizeLimit)], options: options)
        // The files are removed when they go: they must outlive the read, not just the path's copy.
        defer { withExtendedLifetime(copies) {} }
        do { return try BucketListingPage.read(path: copies[0].path, name: "the listing of \(location)") } catch {
            throw .bucket(location, Failure(description: error.description, kind: .remote))
        }
    }

    /// Each object's own CRC-32 as its store keeps it (GetObjectAttributes, all of a page at once),
    /// nil where the store keeps none of the whole object; `tally` counts the multipart composites.
    private func storedCRC32s(
        of objects: [(object: BucketListingPage.Object, url: String)], tally: inout BucketTally
    ) throws(PublishFailure) -> [UInt32?] {
        guard !objects.isEmpty else { return [] }
        var asking = options
        asking.headers = ["x-amz-object-attributes: ETag,Checksum,ObjectSize"]
        // The header goes to the store alone, as its key does.
        asking.credentialScope = CredentialScope()
        if let store = options.objectStore, let target = S3Location.requestURL(for: objects[0].url, at: store) {
            asking.credentialScope.admit(originOf: target)
        }
        let copies = try fetchedEach(objects.map { ($0.url + "?attributes", ObjectAttributes.sizeLimit) }, options: asking)
        defer { withExtendedLifetime(copies) {} }
        var crc32s: [UInt32?] = []
        for (index, copy) in copies.enumerated() {
            // A store without GetObjectAttributes (or a key without its permission) costs only a
            // download: the object is streamed and hashed, as one without a CRC-32 is.
            var read: ObjectAttributes?
            var reason = ""
            switch copy {
            case .success(let file):
                do throws(ManifestError) { read = try ObjectAttributes.read(path: file.path, name: "the attributes of \(objects[index].url)") } catch {
                    reason = error.problem
                }
            case .failure(let failure):
                reason = failure.description
            }
            guard let attributes = read else {
                tally.unanswered += 1
                tally.unansweredReason = tally.unansweredReason ?? reason
                crc32s.append(nil)
                continue
            }
            let crc32 = attributes.size == objects[index].object.size ? attributes.fileCRC32 : nil
            if crc32 == nil, attributes.crc32Base64 != nil, ObjectAttributes.isMultipart(attributes.etag) || attributes.checksumType == "COMPOSITE" {
                tally.multipart += 1
            }
            crc32s.append(crc32)
        }
        return crc32s
    }

    /// The entries of `objects`, each streamed once into a temporary file and hashed.
    private func hashed(_ objects: [(object: BucketListingPage.Object, path: String, url: String)]) throws(PublishFailure) -> [ManifestEntry] {
        let copies = try fetched(objects.map { ($0.url, $0.object.size) }, options: options)
        defer { withExtendedLifetime(copies) {} }
        var entries: [ManifestEntry] = []
        for (index, copy) in copies.enumerated() {
            let (object, path, url) = objects[index]
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
            entries.append(ManifestEntry(path: path, size: object.size, crc32: sums.checksums.crc32, sha256: sums.checksums.sha256))
        }
        return entries
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

    /// Each document's answer (`url`, at most `limit` bytes) in a temporary file of its own, fetched
    /// together; removed when the files go.
    private func fetched(_ documents: [(url: String, limit: Int64)], options: TransferOptions) throws(PublishFailure) -> [TemporaryFile] {
        var files: [TemporaryFile] = []
        for (index, outcome) in try fetchedEach(documents, options: options).enumerated() {
            switch outcome {
            case .success(let file): files.append(file)
            case .failure(let error):
                throw .bucket(location, Failure(description: "cannot fetch \(documents[index].url): \(error.description)", kind: .remote))
            }
        }
        return files
    }

    /// As `fetched`, each document's answer or why there is none (throwing only for a stop, or a
    /// temporary file that cannot be made).
    private func fetchedEach(
        _ documents: [(url: String, limit: Int64)], options: TransferOptions
    ) throws(PublishFailure) -> [Result<TemporaryFile, ManifestFetcher.Failure>] {
        var files: [TemporaryFile] = []
        for _ in documents {
            guard let file = TemporaryFile(in: temporaryDirectory, prefix: "assetsync-bucket") else {
                throw .unwritable(temporaryDirectory, SystemError("mkstemp"))
            }
            files.append(file)
        }
        let batch = zip(documents, files).map { document, file in
            ManifestFetcher.Document(url: document.url, sizeLimit: max(document.limit, 1), destination: ManifestFile(path: file.path))
        }
        let outcomes: [Result<String, ManifestFetcher.Failure>]
        do { outcomes = try ManifestFetcher(options: options, stop: stop).fetch(batch) } catch { throw .interrupted }
        if stop.isRequested() { throw .interrupted }
        return zip(outcomes, files).map { outcome, file in outcome.map { _ in file } }
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
