extension Array where Element == UInt8 {
    /// `withUnsafeMutableBytes`, keeping the closure's typed error.
    package mutating func withMutableBytes<Result, Failure: Error>(
        _ body: (UnsafeMutableRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        var outcome: Swift.Result<Result, Failure>?
        withUnsafeMutableBytes { bytes in
            outcome = Swift.Result { () throws(Failure) -> Result in try body(bytes) }
        }
        return try outcome!.get()
    }

    /// `withUnsafeBytes`, keeping the closure's typed error.
    package func withBytes<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        var outcome: Swift.Result<Result, Failure>?
        withUnsafeBytes { bytes in
            outcome = Swift.Result { () throws(Failure) -> Result in try body(bytes) }
        }
        return try outcome!.get()
    }
}
