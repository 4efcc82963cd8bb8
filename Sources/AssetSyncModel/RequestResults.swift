/// What a pull did.
package struct PullResult: Sendable {
    package var outcome: PullOutcome
    /// The directory it worked in: the destination, or the generation it built.
    package var root: String
    /// The generation the destination shows now, when this pull published one.
    package var published: String?
    /// Why the built generation was not published though every file was had.
    package var publishFailure: (any ExplainedError)?
    /// How long the files' work took, from the walk of the destination to the last commit.
    package var seconds: Double

    package init(outcome: PullOutcome, root: String, published: String? = nil, publishFailure: (any ExplainedError)? = nil, seconds: Double) {
        self.outcome = outcome
        self.root = root
        self.published = published
        self.publishFailure = publishFailure
        self.seconds = seconds
    }
}

/// What a pull would do.
package struct PlanResult: Sendable {
    package var manifest: Manifest
    package var plan: SyncPlan
    /// What the pull would copy from files already on this machine.
    package var reuse: PlannedReuse

    package init(manifest: Manifest, plan: SyncPlan, reuse: PlannedReuse) {
        self.manifest = manifest
        self.plan = plan
        self.reuse = reuse
    }
}

/// What a verification found.
package struct VerifyResult: Sendable {
    package var manifest: Manifest
    /// One for each entry of the manifest, in its order.
    package var verdicts: [ContentVerdict]

    package init(manifest: Manifest, verdicts: [ContentVerdict]) {
        self.manifest = manifest
        self.verdicts = verdicts
    }
}
