import CSystemShim
package import Glibc

/// An open file descriptor and the calls assetsync makes on it: each retried on `EINTR`, short
/// reads and writes continued, and every failure thrown as a `SystemError` naming the call and
/// the path. It does not own the descriptor: whoever opened it closes it.
package struct FileDescriptor {
    package let raw: Int32
    /// The file's path, for messages.
    package let path: String?

    package init(_ raw: Int32, path: String? = nil) {
        self.raw = raw
        self.path = path
    }

    /// Writes every byte of `bytes` at the file's position.
    package func writeAll(_ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        var done = 0
        while done < bytes.count {
            done += try retryingInterrupts("write", path: path) { write(raw, bytes.baseAddress! + done, bytes.count - done) }
        }
    }

    /// Writes every byte of `bytes` starting at `offset`, leaving the file's position alone.
    package func writeAll(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(SystemError) {
        var done = 0
        while done < bytes.count {
            done += try retryingInterrupts("write", path: path) {
                pwrite(raw, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            }
        }
    }

    /// Reads up to `buffer.count` bytes at the file's position; 0 at the end of the file.
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
        try retryingInterrupts("read", path: path) { Glibc.read(raw, buffer.baseAddress, buffer.count) }
    }

    /// Reads up to `buffer.count` bytes starting at `offset`; 0 at the end of the file.
    package func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(SystemError) -> Int {
        try retryingInterrupts("read", path: path) { pread(raw, buffer.baseAddress, buffer.count, off_t(offset)) }
    }

    /// Reads the first `length` bytes with `pread`, `buffer`'s size at a time, handing each piece to
    /// `body`; a file that ends before them is an I/O error. `shouldStop`, asked before each piece,
    /// ends the read with `ECANCELED` (a stop request: a file of any size is left at once).
    package func readPieces(
        length: Int64, buffer: UnsafeMutableRawBufferPointer, until shouldStop: () -> Bool = { false },
        _ body: (UnsafeRawBufferPointer) -> Void
    ) throws(SystemError) {
        var offset: Int64 = 0
        while offset < length {
            if shouldStop() { throw SystemError("read", path: path, code: ECANCELED) }
            let wanted = Int(min(Int64(buffer.count), length - offset))
            let got = try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<wanted]), at: offset)
            if got == 0 { throw SystemError("read", path: path, code: EIO) }
            body(UnsafeRawBufferPointer(rebasing: buffer[0..<got]))
            offset += Int64(got)
        }
    }

    /// Makes the file's data durable.
    package func syncData() throws(SystemError) {
        _ = try retryingInterrupts("fsync", path: path) { fdatasync(raw) }
    }

    /// Makes everything written on the descriptor's file system durable at once: one journal
    /// commit for many files instead of one per file.
    package func syncFileSystem() throws(SystemError) {
        _ = try retryingInterrupts("syncfs", path: path) { asc_syncfs(raw) }
    }

    /// Starts writing `length` bytes from `offset` to disk without waiting for them; only a hint,
    /// so that a later sync has little left to do and dirty pages do not pile up.
    package func startWriteback(from offset: Int64, length: Int64) {
        _ = asc_start_writeback(raw, offset, length)
    }

    /// `openat` with `O_DIRECT` (writes past the page cache) added to `flags`: a descriptor, or -1 with
    /// `errno` set (EINVAL: the file system has no direct I/O).
    package static func openDirect(in directory: Int32, _ name: String, flags: Int32) -> Int32 {
        asc_openat_direct(directory, name, flags)
    }

    /// Reserves blocks for the first `length` bytes, so that writes at scattered offsets find them
    /// together; only a hint: a file system that cannot (EOPNOTSUPP) or a full disk is found by the writes.
    package func preallocate(length: Int64) {
        _ = asc_fallocate(raw, 0, length)
    }

    /// Makes this (empty) file share every block of `source` (`FICLONE`, a reflink): no data is copied.
    /// Only a way to save work: false where the file system cannot (another file system, no reflinks),
    /// and the caller copies instead.
    package func clone(from source: FileDescriptor) -> Bool {
        asc_clone_file(raw, source.raw) == 0
    }

    /// Copies `length` bytes from `source` at `sourceOffset` to this file at `offset` inside the kernel
    /// (`copy_file_range`, which shares blocks where the file system can), as far as it goes; returns
    /// how many bytes were copied, which is less than `length` where the kernel or the file system
    /// stopped, and the caller copies the rest itself.
    package func copyRange(from source: FileDescriptor, length: Int64, sourceOffset: Int64 = 0, offset: Int64 = 0) -> Int64 {
        var done: Int64 = 0
        while done < length {
            let copied = asc_copy_file_range(source.raw, sourceOffset + done, raw, offset + done, length - done)
            if copied < 0, errno == EINTR { continue }
            guard copied > 0 else { break }
            done += copied
        }
        return done
    }

    /// Where the next hole (`SEEK_HOLE`) or the next data (`SEEK_DATA`) at or after `offset` starts;
    /// -1 with `errno` set (ENXIO: nothing but holes from `offset` on, or `offset` at the end).
    package func seekNext(hole: Bool, from offset: Int64) -> Int64 {
        asc_seek(raw, offset, hole ? 1 : 0)
    }

    /// Sets the file's permission bits (`fchmod`).
    package func setMode(_ mode: mode_t) throws(SystemError) {
        _ = try retryingInterrupts("chmod", path: path) { fchmod(raw, mode) }
    }

    /// Cuts the file (or extends it with a hole) to `length` bytes.
    package func truncate(to length: Int64) throws(SystemError) {
        _ = try retryingInterrupts("truncate", path: path) { ftruncate(raw, off_t(length)) }
    }

    /// Takes the file's exclusive `flock` without waiting; false when another open file holds it (EWOULDBLOCK).
    package func tryLock() throws(SystemError) -> Bool {
        while flock(raw, LOCK_EX | LOCK_NB) != 0 {
            if errno == EWOULDBLOCK { return false }
            if errno != EINTR { throw SystemError("flock", path: path) }
        }
        return true
    }

    package func status() throws(SystemError) -> stat {
        var status = stat()
        _ = try retryingInterrupts("stat", path: path) { fstat(raw, &status) }
        return status
    }
}
