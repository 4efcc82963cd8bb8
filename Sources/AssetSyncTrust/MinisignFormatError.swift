package import AssetSyncModel

/// A minisign key or signature file that cannot be read: what is wrong with it, in words.
package struct MinisignFormatError: ExplainedError, Equatable, CustomStringConvertible {
    package var description: String
    package var kind: ErrorKind { .invalidInput }

    package init(_ description: String) { self.description = description }
}
