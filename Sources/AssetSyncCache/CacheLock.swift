package import AssetSyncModel
package import AssetSyncSystem
import Glibc

/// `DEST/.assetsync/lock`, held with `flock` for a whole pull: a second run
/// waits up to `--lock-wait`, then exits 4 naming the holder. The kernel frees
/// the lock when its holder exits, however it exits (kill -9 included).
package final class CacheLock {
    private let fd: Int32

    /// Who holds the lock: what the holder wrote into the lock file.
    package struct Held: Error, Equatable {
        package var holder: String
        package var path: String
    }

    /// Takes the lock, waiting up to `wait` seconds (0: not at all) by `clock` until `stop` is
    /// requested, then sweeps the temporaries that crashed runs left, and writes who holds it.
    package init(root: CacheRoot, wait: Double, stop: StopSource = .never, clock: () -> Double = MonotonicClock.now) throws(LockError) {
        let metadata = root.metadataDirectory
        let path = metadata.pathOf(CacheNames.lock)
        let deadline = clock() + wait
        var fd: Int32
        var held = stat()
        while true {
            do {
                fd = try metadata.openFile(CacheNames.lock, flags: O_RDWR | O_CREAT | O_NONBLOCK, mode: 0o644, path: path)
            } catch {
                throw .system(error)
            }
            let file = FileDescriptor(fd, path: path)
            while true {
                let locked: Bool
                do {
                    locked = try file.tryLock()
                } catch {
                    close(fd)
                    throw .system(error)
                }
                if locked { break }
                // flock has no timeout: the lock is asked for again every 50 ms, a stop heard at once.
                if clock() >= deadline || !stop.sleep(min(0.05, deadline - clock()), clock: clock) {
                    let holder = Self.holder(fd)
                    close(fd)
                    throw .held(Held(holder: holder, path: path))
                }
            }
            // The lock counts only while the name still leads to this inode: the holder before may
            // have replaced or removed it, and then the next run locks the new one.
            do {
                held = try file.status()
            } catch {
                close(fd)
                throw .system(error)
            }
            if let named = try? metadata.status(of: CacheNames.lock), named.st_dev == held.st_dev, named.st_ino == held.st_ino { break }
            close(fd)
        }
        if held.st_mode & S_IFMT != S_IFREG || held.st_nlink != 1 {
            fd = try Self.replace(fd, in: root)
        }
        self.fd = fd
        // Temporaries are staged in partial/; earlier versions made them beside their targets.
        AtomicFile.removeTemporaries(in: root.partialDirectory.raw)
        AtomicFile.removeTemporaries(in: metadata.raw)
        // The details are only shown to runs that wait; failing to write them must not stop this one.
        let text = KeyValueRecord.encode([("pid", "\(getpid())"), ("host", Self.hostName()), ("started", Self.timestamp())])
        let file = FileDescriptor(fd)
        if (try? file.truncate(to: 0)) != nil {
            _ = try? Array(text.utf8).withBytes { bytes throws(SystemError) in try file.writeAll(bytes, at: 0) }
        }
    }

    /// Puts a fresh lock file, locked before it gets the name, in place of `old` (whose lock is held):
    /// only a regular file with no other name may be written, or a hard link planted at `lock`
    /// would make the holder's details overwrite a file outside DEST.
    private static func replace(_ old: Int32, in root: CacheRoot) throws(LockError) -> Int32 {
        defer { close(old) }
        let partials = root.partialDirectory
        let path = root.metadataDirectory.pathOf(CacheNames.lock)
        let fresh: AtomicFile.Temporary
        do {
            fresh = try AtomicFile.createTemporary(for: CacheNames.lock, in: partials.raw, mode: 0o644, display: partials.path)
        } catch {
            throw .system(error)
        }
        do throws(SystemError) {
            guard try FileDescriptor(fresh.fd).tryLock() else { throw SystemError("flock", code: EWOULDBLOCK) }
            try partials.rename(fresh.name, to: CacheNames.lock, in: root.metadataDirectory)
        } catch {
            close(fresh.fd)
            try? partials.removeFile(fresh.name)
            throw .system(SystemError("rename", path: path, code: error.code))
        }
        return fresh.fd
    }

    deinit { close(fd) }

    /// "pid 123 on host build-7, started 2026-11-30T06:00:00Z", from the holder's lock file.
    private static func holder(_ fd: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = (try? buffer.withMutableBytes { bytes throws(SystemError) in try FileDescriptor(fd).read(into: bytes, at: 0) }) ?? 0
        guard count > 0 else { return "an unknown process (it has not written its details yet)" }
        let fields = KeyValueRecord.decode(String(decoding: buffer[0..<count], as: UTF8.self)) ?? [:]
        return "pid \(fields["pid"] ?? "?") on host \(fields["host"] ?? "?"), started \(fields["started"] ?? "?")"
    }

    private static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "?" }
        return text(buffer)
    }

    /// Now, in UTC, as ISO 8601.
    static func timestamp() -> String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%SZ", &parts)
        return text(buffer)
    }

    /// The text of a NUL-terminated C buffer.
    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

package enum LockError: ExplainedError, Equatable, CustomStringConvertible {
    case held(CacheLock.Held)
    case system(SystemError)

    package var kind: ErrorKind {
        switch self {
        case .held: return .lockHeld
        case .system: return .localIO
        }
    }

    package var description: String {
        switch self {
        case .held(let held): return "another assetsync run holds \(held.path): \(held.holder)"
        case .system(let error): return error.description
        }
    }

    package var cause: (any Error)? {
        guard case .system(let error) = self else { return nil }
        return error
    }
}
