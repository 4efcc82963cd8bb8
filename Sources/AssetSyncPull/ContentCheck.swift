package import AssetSyncCache
package import AssetSyncModel
package import AssetSyncSystem
import Glibc

/// Proves files by reading them and computing their CRC-32 (and SHA-256, when the entry gives one), on all cores.
package enum ContentCheck {
    /// What reading one entry's file found.
    package enum Verdict: Equatable, Sendable {
        /// Its bytes match: the record to keep in the state index, from the `fstat` taken before reading.
        case proven(StateIndex.Record)
        case missing
        case notARegularFile
        case wrongSize(Int64)
        case wrongCRC(UInt32)
        case wrongSHA256(SHA256Digest)
        case unreadable(SystemError)

        package var proof: StateIndex.Record? {
            if case .proven(let record) = self { return record }
            return nil
        }
    }

    /// The verdict on each entry's file, read in parallel by one worker per core; nil when `shouldStop`
    /// turned true before every file was read to its end (a stop leaves a file of any size at once).
    package static func verdicts(
        of entries: [ManifestEntry], in root: CacheRoot, until shouldStop: @escaping @Sendable () -> Bool = { false }
    ) -> [Verdict]? {
        let verdicts = ParallelReader.map(entries.count, placeholder: nil) { index, buffer -> Verdict? in
            shouldStop() ? nil : verdict(on: entries[index], in: root, buffer: buffer, until: shouldStop)
        }
        return verdicts.contains(nil) ? nil : verdicts.map { $0! }
    }

    /// Reads the regular file at the entry's path, never through a symlink; nil when `shouldStop` ended the read.
    package static func verdict(
        on entry: ManifestEntry, in root: CacheRoot, buffer: UnsafeMutableRawBufferPointer, until shouldStop: () -> Bool = { false }
    ) -> Verdict? {
        let display = root.path + "/" + entry.path
        let parent: DirectoryHandle
        do {
            parent = try root.openParent(of: entry.path, creating: false)
        } catch {
            if case .system(let failure) = error, failure.code != ENOENT, failure.code != ENOTDIR, failure.code != ELOOP {
                return .unreadable(failure)
            }
            return .missing
        }
        let name = String(entry.path.split(separator: "/").last!)
        let fd: Int32
        do {
            fd = try parent.openFile(name, flags: O_RDONLY | O_NONBLOCK, path: display)
        } catch {
            switch error.code {
            case ENOENT: return .missing
            case ELOOP: return .notARegularFile
            default: return .unreadable(error)
            }
        }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { return .unreadable(SystemError("stat", path: display)) }
        guard status.st_mode & S_IFMT == S_IFREG else { return .notARegularFile }
        guard Int64(status.st_size) == entry.size else { return .wrongSize(Int64(status.st_size)) }
        posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL)
        let sums: FileChecksums
        do {
            sums = try FileChecksums.of(
                fd: fd, length: entry.size, withSHA256: entry.sha256 != nil, buffer: buffer, path: display, until: shouldStop)
        } catch {
            return error.code == ECANCELED && shouldStop() ? nil : .unreadable(error)
        }
        if let crc32 = entry.crc32, sums.crc32 != crc32 { return .wrongCRC(sums.crc32) }
        if let sha256 = sums.sha256, sha256 != entry.sha256 { return .wrongSHA256(sha256) }
        return .proven(StateIndex.Record(LocalItem(status), crc32: entry.crc32, sha256: entry.sha256))
    }
}
