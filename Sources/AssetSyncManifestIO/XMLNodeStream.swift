import AssetSyncSystem
import Glibc

/// Where `XMLManifestWalker` gets its nodes. For a manifest read from a plain
/// regular file (one whose size is known, and whose reads never wait), libxml2
/// parses on a second thread, a few batches ahead of the walker: parsing is
/// half of the work, and checking the entries most of the rest. Any other
/// input (a pipe, gzip) is parsed on the walker's thread, one node at a time,
/// so that nothing is read before the walker needs it.
///
/// Either way the walker sees the same nodes in the same order, and the end
/// or error in the same place; a reader that ran ahead of an error the walker
/// found is stopped, and whatever it found is dropped.
package final class XMLNodeStream {
    private let mode: Mode

    private enum Mode {
        case sameThread(XMLNodeReader)
        case parser(Batches, JoinableThread<Void>)
    }

    /// The batches going round: free ones to the parser, filled ones (in order) to the walker.
    /// A fixed number circulates, which bounds how far the parser runs ahead.
    private struct Batches {
        let free: HandoffQueue<XMLNodeBatch>
        let filled: HandoffQueue<XMLNodeBatch>
    }

    /// Nodes per batch when parsing on the second thread, and batches the parser may fill ahead.
    static let batchNodes = 2048
    static let batchesAhead = 4

    /// `xmlInitParser()` must have run, on the main thread.
    package init(input: ManifestInput) {
        guard input.sizeHint != nil else {  // not a plain regular file
            mode = .sameThread(XMLNodeReader(input: input))
            return
        }
        // One more than the parser may fill: the walker holds one while it handles it.
        let batches = Batches(
            free: HandoffQueue(capacity: Self.batchesAhead + 1), filled: HandoffQueue(capacity: Self.batchesAhead + 1))
        for _ in 0..<Self.batchesAhead { batches.free.put(XMLNodeBatch(capacity: Self.batchNodes)) }
        // The input belongs to the parser thread from here until `close()` has joined it.
        if let thread = JoinableThread({ Self.parse(input, batches) }) {
            mode = .parser(batches, thread)
        } else {
            mode = .sameThread(XMLNodeReader(input: input))
        }
    }

    /// Replaces `batch` (whose nodes the walker has handled) with the next one.
    package func next(_ batch: inout XMLNodeBatch) {
        switch mode {
        case .sameThread(let reader):
            batch.removeAll()
            reader.read(into: &batch, limit: 1)
        case .parser(let batches, _):
            batches.free.put(batch)
            batch = batches.filled.take()!  // the parser ends with a batch that has an `end`
        }
    }

    /// Stops the parser thread, if any, and waits for it: it then has released libxml2 and the input.
    package func close() {
        guard case .parser(let batches, let thread) = mode else { return }
        batches.free.cancel()
        thread.join()
    }

    /// The parser thread's work: fill free batches until the document ends or the walker cancels.
    private static func parse(_ input: ManifestInput, _ batches: Batches) {
        let reader = XMLNodeReader(input: input)
        while var batch = batches.free.take() {
            batch.removeAll()
            reader.read(into: &batch, limit: batchNodes)
            let ended = batch.end != nil
            batches.filled.put(batch)
            if ended { return }
        }
    }
}
