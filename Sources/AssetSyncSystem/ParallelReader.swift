import Dispatch
import Glibc

/// Reads many files at once: maps indices to results on one worker per core, each
/// worker with its own page-aligned 1 MiB read buffer (copying into a buffer that
/// starts 16 bytes into a page cost five times as much here).
package enum ParallelReader {
    package static func map<Output: Sendable>(
        _ count: Int, placeholder: Output, _ body: @Sendable (Int, UnsafeMutableRawBufferPointer) -> Output
    ) -> [Output] {
        let results = UnsafeMutableBufferPointer<Output>.allocate(capacity: count)
        results.initialize(repeating: placeholder)
        defer { results.deallocate() }
        let next = AtomicCounter()
        let workers = max(1, min(count, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))))
        let shared = Slots(results)
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 4096)
            defer { buffer.deallocate() }
            while true {
                let index = next.increment()
                guard index < count else { return }
                shared.buffer[index] = body(index, buffer)
            }
        }
        return Array(results)
    }

    /// The results, handed to workers that each write distinct indices.
    private struct Slots<Output>: @unchecked Sendable {
        let buffer: UnsafeMutableBufferPointer<Output>
        init(_ buffer: UnsafeMutableBufferPointer<Output>) { self.buffer = buffer }
    }
}
