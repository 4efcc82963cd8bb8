package import AssetSyncCache
package import AssetSyncModel
package import AssetSyncSystem

/// A pull in generations (`pull --atomic`, or remembered by DEST's generation store): what the run
/// decides before the store's lock (whether it is atomic, with which `keep`), what it does once it
/// holds the lock (finish what a killed run left, go plain when asked, record a new `keep`), and the
/// build and publish of the next generation. The caller opens the store and takes the locks, and
/// tells what goes wrong in its own words: every failure here is one `GenerationFailure`.
package struct GenerationPull {
    /// What the run decides before it holds any lock, from what it was asked and the mode the store records.
    package struct Choice: Sendable {
        package let remembered: GenerationStore.Mode?
        /// Whether this pull builds and publishes a generation. A switch back to plain that a kill cut
        /// short is finished first, whatever this run asks (`leaving`).
        package let atomic: Bool
        package let keep: Int

        /// Decides for DEST `dest`; `keep` as asked, or nil for the remembered one (or the default).
        package init(dest: String, asked: SyncRequest.Layout, keep requested: Int?) {
            remembered = GenerationStore.rememberedMode(dest)
            switch asked {
            case .atomic: atomic = true
            case .plain: atomic = false
            case .asBefore: atomic = remembered.map { !$0.leaving } ?? false
            }
            keep = requested ?? remembered?.keep ?? GenerationStore.defaultKeep
        }

        /// Whether the store must be opened and locked at all: DEST is atomic, or is to become so.
        package var touchesStore: Bool { remembered != nil || atomic }
        /// Whether this pull makes DEST atomic (it was plain, or on its way back to plain).
        package var switching: Bool { remembered.map(\.leaving) ?? true }
    }

    package let store: GenerationStore
    package let keep: Int
    /// The mode to record just before the first publish, when this pull makes DEST atomic: a switch
    /// that fails (a file that cannot be had, a build that cannot be made) records nothing.
    let modeToRecord: GenerationStore.Mode?

    /// What the run does first under the store's lock: finishes what a run killed there left, makes
    /// DEST plain again when the choice is plain (or a switch to plain was cut short), and records a
    /// new `keep`. Returns the warnings to tell (what DEST's old plain tree still holds). After it,
    /// a plain choice goes on as a plain pull; an atomic one takes DEST's own lock while DEST is
    /// still a directory (`store.destIsPlain`), then makes its `GenerationPull`.
    package static func begin(_ store: GenerationStore, choice: Choice) throws(GenerationFailure) -> [String] {
        let warnings = try finishInterruptedSteps(of: store)
        do {
            if !choice.atomic || choice.remembered?.leaving == true { try store.makePlain() }
        } catch {
            throw .goingPlain(store.destPath, error)
        }
        if choice.atomic, !choice.switching, choice.keep != choice.remembered?.keep {
            do { try store.remember(GenerationStore.Mode(keep: choice.keep, clonesFiles: choice.remembered?.clonesFiles ?? false)) } catch {
                throw .recordingMode(store.destPath, error, beforePublishing: false)
            }
        }
        return warnings
    }

    /// What every run does first under the store's lock (see `GenerationStore.finishInterruptedSteps`);
    /// returns the warnings to tell.
    package static func finishInterruptedSteps(of store: GenerationStore) throws(GenerationFailure) -> [String] {
        do { try store.finishInterruptedSteps() } catch { throw .finishing(store.root.path, error) }
        return whatStaysRetired(store)
    }

    /// The atomic pull of a choice that `begin` went through.
    package init(store: GenerationStore, choice: Choice) {
        self.store = store
        keep = choice.keep
        modeToRecord = choice.switching ? GenerationStore.Mode(keep: choice.keep, clonesFiles: choice.remembered?.clonesFiles ?? false) : nil
    }

    /// The generation this pull builds, linked from the current one, opened as the run's cache root.
    package func build() throws(GenerationFailure) -> CacheRoot {
        do { _ = try store.prepareBuild(keep: keep) } catch { throw .preparing(store.destPath, error) }
        do { return try store.openBuild() } catch { throw .openingBuild(store.destPath, error) }
    }

    /// Publishes the built generation (recording the mode first when this pull makes DEST atomic),
    /// then removes those beyond `keep`. Returns the warnings to tell: an old generation that could
    /// not be removed, what DEST's old plain tree still holds.
    package func publish(_ build: CacheRoot) throws(GenerationFailure) -> [String] {
        do {
            if let modeToRecord { try store.remember(modeToRecord) }
        } catch {
            throw .recordingMode(store.destPath, error, beforePublishing: true)
        }
        do { _ = try store.publish(build) } catch { throw .publishing(store.destPath, error) }
        var warnings = Self.whatStaysRetired(store)
        do { _ = try store.prune(keep: keep) } catch {
            warnings.append("cannot remove an old generation of \(store.destPath): \(error.description)")
        }
        return warnings
    }

    /// A walk of the generation the next one will most likely be made of with its names and inodes
    /// (`GenerationStore.generationToWalkEarly`), to start before the lock is held and the manifest
    /// read; see `walk`.
    package static func earlyWalk(of dest: String) -> (generation: String, walk: CacheWalk)? {
        GenerationStore.generationToWalkEarly(of: dest).map { ($0.name, CacheWalk(path: $0.path)) }
    }

    /// The walk of the generation this pull builds: the early walk, when `next/` turned out to have the
    /// names and inodes of the generation it walked (the build was made under the lock, so no run
    /// changed either since) and the walk saw all of it; else a walk of `next/`.
    package func walk(of build: CacheRoot, early: (generation: String, walk: CacheWalk)?) -> CacheWalk {
        if let early, store.buildHasInodesOf == early.generation { return CacheWalk(early.walk, otherwise: build) }
        return CacheWalk(build)
    }

    /// What DEST's old plain tree still holds, which no step removes.
    static func whatStaysRetired(_ store: GenerationStore) -> [String] {
        var warnings: [String] = []
        if let failure = store.retirementFailure {
            warnings.append("DEST's old tree stays in \(store.retiredPath) (\(failure.description)); the next run carries it into "
                + "\(store.destPath) again")
        }
        for path in store.notCarried {
            warnings.append("\(QuotedValue.quote(store.retiredPath + "/" + path)) was in \(store.destPath) before it became atomic, "
                + "and \(store.destPath) now holds \(QuotedValue.quote(path)) as another kind of file; it was kept there: move it where you want it")
        }
        return warnings
    }
}

/// Why a pull in generations could not go on; `message` says which step, on which path, and what to do.
package enum GenerationFailure: ExplainedError, CustomStringConvertible {
    case finishing(String, SystemError)
    case goingPlain(String, SystemError)
    /// `beforePublishing`: the mode of a switch, recorded just before the first publish, which then did not happen.
    case recordingMode(String, SystemError, beforePublishing: Bool)
    case preparing(String, SystemError)
    case openingBuild(String, CacheError)
    case publishing(String, CacheError)

    package var kind: ErrorKind {
        switch self {
        case .finishing(_, let error), .goingPlain(_, let error), .recordingMode(_, let error, _), .preparing(_, let error): error.kind
        case .openingBuild(_, let error), .publishing(_, let error): error.kind
        }
    }

    /// What else clears a build that cannot be opened (something in the way of its directory).
    package var remedy: Remedy? {
        guard case .openingBuild(_, let error) = self else { return nil }
        return error.remedy
    }

    package var description: String {
        switch self {
        case .finishing(let store, let error): "cannot finish what an interrupted run left in \(store): \(error.description)"
        case .goingPlain(let dest, let error): "cannot make a plain directory of \(dest): \(error.description)"
        case .recordingMode(let dest, let error, let beforePublishing):
            "cannot record the atomic mode of \(dest): \(error.description)"
                + (beforePublishing ? "; it still shows the one before, and the next pull resumes the new one" : "")
        case .preparing(let dest, let error): "cannot prepare the next generation of \(dest): \(error.description)"
        case .openingBuild(let dest, let error): "cannot open the next generation of \(dest): \(error.description)"
        case .publishing(let dest, let error):
            "cannot publish the new generation of \(dest): \(error.description); it still shows the one before, and the next pull resumes the new one"
        }
    }
}
