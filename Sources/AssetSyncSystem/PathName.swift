/// The one way assetsync separates a path's parent directory from its last component.
package enum PathName {
    /// `path` cut at its last "/" (byte-wise): the parent, nil when there is no "/", and the name.
    package static func split(_ path: String) -> (parent: Substring?, name: Substring) {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return (nil, path[...]) }
        return (path[..<slash], path[path.utf8.index(after: slash)...])
    }

    /// The directory to open for `path`'s parent: "." without a "/", "/" for a name at the root.
    package static func directory(of path: String) -> String {
        guard let parent = split(path).parent else { return "." }
        return parent.isEmpty ? "/" : String(parent)
    }
}
