"""Result bundles: runs that anyone can send and anyone can check, trusting no one's numbers.

    summary = bundle_runs([Path("runs/quick")], Path("quick.zip"))  # records, answers, manifest
    verification = verify_bundle(Path("quick.zip"))  # checksums, suites, every answer re-scored
    merge_bundles([Path("quick.zip")], Path("board"))  # verified runs join a shared board

Every run stores its benchmark answers (`run_records.answers`), so a bundle's verdicts are
re-scored by the verifier installed where it is checked, on suites checked against their
version and content checksum; a bundle whose numbers disagree is refused.

Only sealed run files travel (`sealed`): regular files inside their run, reached with no link
followed and reading as what they are; the site copies run files through the same seal.
"""

from leaderboards.bundles.archive import MAX_MEMBERS, MAX_TOTAL_BYTES
from leaderboards.bundles.errors import BundleError
from leaderboards.bundles.manifest import (
    BUNDLE_FORMAT,
    MANIFEST_FILE,
    BundleFile,
    BundleManifest,
    BundleRun,
    BundleSuite,
    run_name,
)
from leaderboards.bundles.merge import MergeResult, merge_bundles
from leaderboards.bundles.sealed import (
    SealError,
    run_file_names,
    sealed_file,
    sealed_run_files,
)
from leaderboards.bundles.verify import SHOWN_MISMATCHES, Verification, check_bundle, verify_bundle
from leaderboards.bundles.write import BundleSummary, bundle_runs, check_bundle_out

__all__ = [
    "BUNDLE_FORMAT",
    "MANIFEST_FILE",
    "MAX_MEMBERS",
    "MAX_TOTAL_BYTES",
    "SHOWN_MISMATCHES",
    "BundleError",
    "BundleFile",
    "BundleManifest",
    "BundleRun",
    "BundleSuite",
    "BundleSummary",
    "MergeResult",
    "SealError",
    "Verification",
    "bundle_runs",
    "check_bundle",
    "check_bundle_out",
    "merge_bundles",
    "run_file_names",
    "run_name",
    "sealed_file",
    "sealed_run_files",
    "verify_bundle",
]
