package import AssetSyncModel
package import AssetSyncSystem
import Glibc

/// Describes a directory tree as a manifest (`assetsync manifest`): every regular file's
/// size and CRC-32, entries sorted by path bytes, so that a rerun over the same files
/// gives the same manifest.
package enum DirectoryDescription {
    package enum Problem: ExplainedError, Equatable, CustomStringConvertible {
        /// The base URL breaks the manifest's rules; the error says which.
        case base(ManifestError)
        case scan(SystemError)
        /// A file whose path no manifest may hold.
        case unrepresentable(path: String, rule: String)
        case read(SystemError)

        package var kind: ErrorKind {
            switch self {
            case .base, .unrepresentable: return .invalidInput
            case .scan, .read: return .localIO
            }
        }

        package var description: String {
            switch self {
            case .base(let error): return error.description
            case .scan(let error), .read(let error): return error.description
            case .unrepresentable(let path, let rule): return "\(QuotedValue.quote(path)) cannot be listed in a manifest: \(rule)"
            }
        }

        package var remedy: Remedy? {
            guard case .base(let error) = self else { return nil }
            return error.remedy
        }

        package var cause: (any Error)? {
            switch self {
            case .scan(let error), .read(let error): return error
            case .base, .unrepresentable: return nil
            }
        }
    }

    /// Walks `directory` (no symlink followed, `.assetsync/` skipped) and computes every
    /// file's size (as read), CRC-32 and, `withSHA256`, SHA-256 in parallel; with `chunking`, each
    /// file's chunk list too; each file is read once for all of them.
    package static func describe(
        _ directory: String, base: String, withSHA256: Bool = false, chunking: ChunkParameters? = nil
    ) throws(Problem) -> Manifest {
        var builder = ManifestBuilder(manifestName: "the base URL", style: .xml)
        do { try builder.setBase(base, at: SourcePosition(line: 1, column: 1)) } catch { throw .base(error) }
        let listing: CacheListing
        do { listing = try CacheScanner.scan(root: directory) } catch { throw .scan(error) }
        if let twin = listing.twins.first {
            throw .unrepresentable(path: twin.path, rule: "path is another Unicode normalization form of a path already listed")
        }
        let paths = listing.items.filter { $0.item.kind == .regular }.map(\.path)
        for path in paths {
            do { _ = try ManifestRules.path(path) } catch { throw .unrepresentable(path: path, rule: error.problem) }
        }
        let sums = try checksums(paths.map { directory + "/" + $0 }, withSHA256: withSHA256, chunking: chunking)
        return Manifest(base: base, entries: zip(paths, sums).map {
            ManifestEntry(path: $0, size: $1.size, crc32: $1.crc, sha256: $1.sha256, chunks: $1.chunks)
        })
    }

    /// Each file's checksums, the bytes read and (with `chunking`) its chunk list, one worker per core;
    /// opened without following a symlink.
    private static func checksums(_ files: [String], withSHA256: Bool, chunking: ChunkParameters?) throws(Problem) -> [Sum] {
        let sums = ParallelReader.map(files.count, placeholder: Result<Sum, SystemError>.failure(SystemError("read", code: EIO))) {
            index, buffer in
            let fd: Int32
            do throws(SystemError) {
                fd = try DirectoryHandle.workingDirectory.openFile(files[index], flags: O_RDONLY)
            } catch {
                return .failure(error)
            }
            defer { close(fd) }
            return Result { () throws(SystemError) in
                let size = Int64(try FileDescriptor(fd, path: files[index]).status().st_size)
                return try sum(fd: fd, length: size, withSHA256: withSHA256, chunking: chunking, buffer: buffer, path: files[index])
            }
        }
        var out: [Sum] = []
        out.reserveCapacity(sums.count)
        for sum in sums {
            switch sum {
            case .success(let value): out.append(value)
            case .failure(let error): throw .read(error)
            }
        }
        return out
    }

    /// The CRC-32, the SHA-256 (`withSHA256`) and the chunk list (with `chunking`) of `fd`'s first
    /// `length` bytes, all over one read of each byte.
    private static func sum(
        fd: Int32, length: Int64, withSHA256: Bool, chunking: ChunkParameters?, buffer: UnsafeMutableRawBufferPointer, path: String
    ) throws(SystemError) -> Sum {
        guard let chunking else {
            let sums = try FileChecksums.of(fd: fd, length: length, withSHA256: withSHA256, buffer: buffer, path: path)
            return Sum(crc: sums.crc32, sha256: sums.sha256, size: length)
        }
        var crc = CRC32()
        let hasher = withSHA256 ? SHA256() : nil
        var chunker = ContentChunker(parameters: chunking)
        try FileDescriptor(fd, path: path).readPieces(length: length, buffer: buffer) { bytes in
            crc.update(bytes)
            hasher?.update(bytes)
            chunker.collect(bytes)
        }
        // A file of one chunk has no delta to offer: a changed version shares no whole chunk with it.
        let chunks = chunker.finishList()
        return Sum(crc: crc.value, sha256: hasher?.finish(), size: length, chunks: chunks.count > 1 ? chunks : nil)
    }

    private struct Sum: Sendable {
        var crc: UInt32
        var sha256: SHA256Digest?
        var size: Int64
        var chunks: ChunkList? = nil
    }
}
