"""The static leaderboard site: `harness leaderboard publish RUNS... --out site/`.

    result = publish_site(load_runs([Path("runs/quick")]), Path("site"), reference=True)

`leaderboards.site.build` documents the layout; the site opens from disk with no network.
Publishing over an earlier site keeps the files a user added to it (`earlier`).
Plots need matplotlib (`pip install 'envdesign-bench[site]'`).
"""

from leaderboards.site.build import SITE_SCHEMA_VERSION, SiteResult, publish_site
from leaderboards.site.earlier import Carried
from leaderboards.site.output import MANIFEST, check_out, is_site

__all__ = [
    "MANIFEST",
    "SITE_SCHEMA_VERSION",
    "Carried",
    "SiteResult",
    "check_out",
    "is_site",
    "publish_site",
]
