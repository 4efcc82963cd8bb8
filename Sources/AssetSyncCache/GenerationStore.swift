import AssetSyncModel
package import AssetSyncSystem
import Glibc

/// `DEST.assetsync/`, beside DEST, for `pull --atomic`: DEST is a symlink to one complete, proven
/// generation in it, and a pull builds the next one and publishes it by renaming a new symlink over DEST.
///
/// ```
/// DEST -> DEST.assetsync/gen-000007      the published generation (a relative symlink)
/// DEST.assetsync/.assetsync/lock         held by every pull, rollback and switch: it serializes runs
///                                        across generations (each generation's own lock is held too)
/// DEST.assetsync/.assetsync/generations  the mode record (`keep`): later runs stay atomic
/// DEST.assetsync/gen-000006/             an older generation, kept for `rollback` (`--keep`)
/// DEST.assetsync/next/                   the generation being built; an interrupted pull leaves it,
///                                        with its partials, and the next run resumes it
/// DEST.assetsync/recycle/                a generation beyond `--keep` being made into `next/`
/// DEST.assetsync/spare/                  what remaking it took out (its files at their paths, its
///                                        state index), for the pull to reuse; gone once published
/// DEST.assetsync/retired/                a plain DEST's tree once its first generation is published:
///                                        what it holds that the generation lacks is carried over
/// DEST.assetsync/trash/                  a tree being removed (a pruned generation, a dropped build)
/// ```
/// Every step that leaves a name behind when killed is finished or undone by the next run under the
/// store's lock (`finishInterruptedSteps`), so that a kill at any system call costs nothing but time.
/// Each generation is a whole cache directory with its own `.assetsync/state`: its records name the
/// inodes of its own files, which are the current generation's (hard links) until a file changes, or,
/// on a file system with reflinks, clones of them (`clonesFiles`).
package final class GenerationStore {
    /// DEST's own name, in `parentFD`.
    package let destName: String
    /// The absolute path DEST was named by (the link, not its target).
    package let destPath: String
    /// `DEST.assetsync/` opened as a cache root: its `.assetsync/` holds the lock and the mode record.
    package let root: CacheRoot
    /// DEST's parent directory.
    let parent: DirectoryHandle

    /// The highest generation number: `gen-999999999`. Names read from the store are untrusted, so a
    /// number is parsed strictly and bounded, and one that reaches this stops publishing with an error.
    static let highestNumber = 999_999_999
    package static let defaultKeep = 2
    /// The generation whose names and inodes the `next/` of the last `prepareBuild` has, if any: the
    /// current one, when `next/` was made of hard links to it (afresh or by recycling); with clones, the
    /// recycled one, when it held the current bytes everywhere and recycling changed nothing. A walk of
    /// that generation stands for a walk of `next/` (see `generationToWalkEarly`).
    package internal(set) var buildHasInodesOf: String?
    /// What DEST's old plain tree still holds after the last `finishInterruptedSteps` or first
    /// `publish` retired it: paths under `retired/` that could not be carried into the generation.
    package internal(set) var notCarried: [String] = []
    /// Why the last `publish` could not retire DEST's old plain tree, which it had already replaced:
    /// the tree stays, and the next run carries it over.
    package internal(set) var retirementFailure: SystemError?
    /// Where DEST's old plain tree waits, when it could not all be carried over (`notCarried`).
    package var retiredPath: String { root.path + "/" + CacheNames.retired }

    /// What the store records of its mode in `.assetsync/generations`, so that later runs keep it.
    package struct Mode: Equatable, Sendable {
        /// How many generations to keep (`--keep`).
        package var keep: Int
        /// Whether generations are made of clones, as the last build found the file system could.
        package var clonesFiles: Bool
        /// Whether a switch back to a plain DEST (`makePlain`) started and has not finished: the next
        /// run finishes it, whatever it was asked, before anything else.
        package var leaving: Bool

        package init(keep: Int, clonesFiles: Bool = false, leaving: Bool = false) {
            self.keep = keep
            self.clonesFiles = clonesFiles
            self.leaving = leaving
        }
    }

    /// Where the store of `dest` is: DEST's parent (resolved) and DEST's own name, never following DEST.
    package static func locate(_ dest: String) -> Result<(parent: String, name: String), CacheDirectory.Problem> {
        let trimmed = dest.count > 1 && dest.hasSuffix("/") ? String(dest.dropLast()) : dest
        let name = String(PathName.split(trimmed).name)
        guard name != ".", name != "..", name != "/", !name.isEmpty else {
            return .failure(CacheDirectory.Problem(
                message: "generations need DEST named by its own name (such as --dest ../assets), since DEST becomes a symlink",
                kind: .invalidInput))
        }
        guard let parent = realpath(PathName.directory(of: trimmed), nil) else {
            return .failure(CacheDirectory.Problem(message: "its parent directory does not exist", kind: .invalidInput))
        }
        defer { free(parent) }
        return .success((String(cString: parent), name))
    }

    /// The generation a pull in the store of `dest` will most likely make `next/` of with its names and
    /// inodes (`buildHasInodesOf`), and its path, read without the store or its lock: the one DEST
    /// shows, or, where generations are clones, the one recycling will pick. Nil when DEST is not a
    /// generation, or an interrupted run left `next/` or `recycle/` (the pull resumes them). A walk of
    /// it may start while the manifest is still being read, and stands for a walk of `next/` if the
    /// build turns out to have its inodes.
    package static func generationToWalkEarly(of dest: String) -> (name: String, path: String)? {
        guard case .success(let (parent, name)) = locate(dest), let mode = rememberedMode(dest), !mode.leaving else { return nil }
        guard let store = openStore(parent: parent, name: name) else { return nil }
        let unfinished: [String] = [CacheNames.build, CacheNames.recycle, CacheNames.link, CacheNames.retired]  // the pull resumes or finishes them
        guard unfinished.allSatisfy({ store.kind(of: $0) == nil }),
              let current = generation(linkedAt: parent + "/" + name, in: .workingDirectory, destName: name)
        else { return nil }
        guard mode.clonesFiles else { return (current, store.pathOf(current)) }
        guard let all = try? generations(in: store),
              let candidate = recycleCandidate(among: all, current: current, keep: mode.keep) else { return nil }
        return (candidate, store.pathOf(candidate))
    }

    /// The mode the store of `dest` records, when DEST is atomic; nil when DEST is plain.
    package static func rememberedMode(_ dest: String) -> Mode? {
        guard case .success(let (parent, name)) = locate(dest) else { return nil }
        guard let metadata = try? openStore(parent: parent, name: name)?.openDirectory(CacheNames.metadata) else { return nil }
        return mode(in: metadata)
    }

    /// The store of DEST `name` in the directory `parent`, opened without following a link at its
    /// name (a planted `DEST.assetsync` symlink is no store); nil when it cannot be opened.
    private static func openStore(parent: String, name: String) -> DirectoryHandle? {
        try? DirectoryHandle(opening: parent).openDirectory(name + CacheNames.storeSuffix)
    }

    /// The mode recorded in the store's metadata directory; nil when there is none.
    static func mode(in metadata: DirectoryHandle) -> Mode? {
        guard let bytes = (try? AtomicFile.read(CacheNames.modeRecord, in: metadata.raw, limit: 4096, display: metadata.path)) ?? nil,
              let fields = KeyValueRecord.decode(String(decoding: bytes, as: UTF8.self)) else { return nil }
        return Mode(
            keep: fields["keep"].flatMap { Int($0) }.map { min(max(1, $0), 1000) } ?? defaultKeep, clonesFiles: fields["clones"] == "yes",
            leaving: fields["leaving"] == "yes")
    }

    /// Opens (creating when needed) the store beside `dest`, which may not exist yet.
    package init(dest: String) throws(CacheError) {
        let parent: String
        switch Self.locate(dest) {
        case .success(let located): (parent, destName) = (located.parent, located.name)
        case .failure(let problem): throw .system(SystemError(problem.message, path: dest, code: EINVAL))
        }
        destPath = parent == "/" ? "/" + destName : parent + "/" + destName
        do {
            self.parent = try DirectoryHandle(opening: parent)
        } catch {
            throw .system(error)
        }
        root = try CacheRoot(named: destName + CacheNames.storeSuffix, in: self.parent, path: destPath + CacheNames.storeSuffix)
    }

    /// Records the atomic mode, durably.
    package func remember(_ mode: Mode) throws(SystemError) {
        let text = KeyValueRecord.encode([("keep", "\(mode.keep)"), ("clones", mode.clonesFiles ? "yes" : "no"), ("leaving", mode.leaving ? "yes" : nil)])
        try AtomicFile.replace(CacheNames.modeRecord, in: root.metadataDirectory.raw, stagingIn: root.partialDirectory.raw, with: Array(text.utf8),
            display: root.metadataDirectory.path)
    }

    /// The generation DEST points at (`gen-000007`), or nil when DEST is a plain directory or missing.
    package func current() -> String? { Self.generation(linkedAt: destName, in: parent, destName: destName) }

    /// The generation the symlink `name` in `directory` points at, when it is DEST's link into its
    /// store (`DEST.assetsync/gen-NNNNNN`); nil for anything else.
    private static func generation(linkedAt name: String, in directory: DirectoryHandle, destName: String) -> String? {
        guard let target = directory.linkTarget(of: name) else { return nil }
        let generation = String(PathName.split(target).name)
        return target == destName + CacheNames.storeSuffix + "/" + generation && number(of: generation) != nil ? generation : nil
    }

    /// The generations in the store, oldest first.
    package func generations() throws(SystemError) -> [String] { try Self.generations(in: root.directory) }

    static func generations(in store: DirectoryHandle) throws(SystemError) -> [String] {
        try store.entries().filter { $0.isDirectory && number(of: $0.name) != nil }
            .map(\.name).sorted { number(of: $0)! < number(of: $1)! }
    }

    /// Whether DEST is still a plain directory (not yet a generation's symlink): its own runs lock
    /// `DEST/.assetsync/lock`, which a run making it atomic must hold too.
    package var destIsPlain: Bool {
        parent.kind(of: destName) == S_IFDIR
    }

    /// The state index the last `prepareBuild` left in `next/` when it made one of clones (the one it
    /// read there, or wrote), so that the pull need not read it again; nil otherwise.
    package internal(set) var buildIndex: StateIndex?

    /// `buildIndex`, handed over to the pull, which is its only reader: the store no longer holds it,
    /// so the pull can change its copy (sharing the manifest's paths) without copying the whole index.
    package func takeBuildIndex() -> StateIndex? {
        defer { buildIndex = nil }
        return buildIndex
    }

    /// Whether the last `prepareBuild` made `next/` of clones (reflinks): each file its own inode, so
    /// that a consumer editing a published file in place changes no other generation, and `next/` does
    /// not have the current generation's inodes. Otherwise its files are hard links to the current ones.
    package internal(set) var clonesFiles = false

    /// Where a pull in this store may find bytes it would otherwise download, newest first: what
    /// remaking the recycled generation took out, then the other generations. The current one counts
    /// only when `next/` is made of clones (a file there edited in place is cloned back from it);
    /// otherwise `next/` has its very files. Their records vouch for their files as DEST's own do.
    package func reuseSources() -> [ReuseSource] {
        let current = current()
        let others = ((try? generations()) ?? []).filter { clonesFiles || $0 != current }.reversed()
        return ([CacheNames.spare] + others).compactMap { ReuseSource(cacheAt: root.path + "/" + $0, recordsVouch: true) }
    }

    /// The generations of the store of `dest` a pull may reuse bytes from besides the one DEST shows,
    /// newest first, read without opening the store (for a plan, which makes nothing); empty when
    /// DEST is plain.
    package static func otherGenerations(of dest: String) -> [ReuseSource] {
        guard case .success(let (parent, name)) = locate(dest) else { return [] }
        guard let store = try? DirectoryHandle(opening: parent + "/" + name + CacheNames.storeSuffix, followingLink: false) else { return [] }
        let current = generation(linkedAt: parent + "/" + name, in: .workingDirectory, destName: name)
        let others = ((try? generations(in: store)) ?? []).filter { $0 != current }.reversed()
        return others.compactMap { ReuseSource(cacheAt: store.pathOf($0), recordsVouch: true) }
    }

    /// Opens `next/`, which `prepareBuild` made, as the run's cache directory (never through a link).
    package func openBuild() throws(CacheError) -> CacheRoot {
        try CacheRoot(named: CacheNames.build, in: root.directory, path: root.path + "/" + CacheNames.build)
    }

    /// The number of a generation's name as `name(of:)` writes it (`gen-` and six to nine ASCII digits,
    /// zero-padded to six and no further, at most `highestNumber`), or nil for any other name.
    static func number(of name: String) -> Int? {
        let digits = name.utf8.dropFirst(CacheNames.generationPrefix.utf8.count)
        guard name.hasPrefix(CacheNames.generationPrefix), (6...9).contains(digits.count), digits.allSatisfy({ (0x30...0x39).contains($0) }),
              digits.count == 6 || digits.first != 0x30 else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    /// The name of generation `number` (1 to `highestNumber`): `gen-000007`.
    static func name(of number: Int) -> String {
        let digits = String(number)
        return CacheNames.generationPrefix + String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }
}
