/// Work started on a thread of its own as soon as it is made (or done at once when no thread can be
/// had), whose value is waited for when it is needed.
package final class BackgroundWork<Value> {
    private var thread: JoinableThread<Value>?
    private var finished: Value?

    package init(_ body: @escaping () -> Value) {
        thread = JoinableThread(body)
        if thread == nil { finished = body() }
    }

    /// Waits for work nobody asked for: the thread never outlives its owner.
    deinit { _ = thread?.join() }

    /// The work's value, waiting for it the first time.
    package func value() -> Value {
        if let thread {
            finished = thread.join()
            self.thread = nil
        }
        return finished!
    }

    /// The work's value, waiting for it, for a caller that is its only reader: the work no longer
    /// holds it, so it is freed as soon as the caller is done with it. Asked for once.
    package func take() -> Value {
        let value = value()
        finished = nil
        return value
    }
}
