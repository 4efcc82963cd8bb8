/// How long-running work learns that it must stop (a signal, in the CLI): a flag it
/// checks, and a descriptor that becomes readable when the flag may have turned true,
/// so that a thread blocked in `poll` wakes at once.
package struct StopSource: Sendable {
    /// Readable once a stop may have been requested; -1 for none.
    package var wakeFD: Int32
    package var isRequested: @Sendable () -> Bool

    package init(wakeFD: Int32, isRequested: @escaping @Sendable () -> Bool) {
        self.wakeFD = wakeFD
        self.isRequested = isRequested
    }

    /// Work that is never asked to stop.
    package static let never = StopSource(wakeFD: -1, isRequested: { false })
}
