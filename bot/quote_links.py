"""Where a link in a quote points, the same in Slack and on the web pages.

A quote's relative link is resolved against the quote's own source link: the file at the
indexed revision on the code host, or a wiki page (whose pages and files sit side by side
in the wiki's root). A site address (``/manual/purge-cache``) quoted from a code host is
no path there: it stays text rather than become a broken link. Only web links come out;
``mailto:``, ``javascript:`` and the like never do.
"""

from __future__ import annotations

import re
from urllib.parse import urljoin

_WEB = re.compile(r"^https?://\S+$", re.I)
_FORGE_FILE = re.compile(r"^https?://[^/]+/.+?/(?:-/)?(?:blob|src|raw|tree)/")
# a wiki page's address (GitHub's "/wiki/Page", at a revision "/wiki/Page/<commit>";
# GitLab's "/-/wikis/Page"): its pages and files sit side by side in the wiki's root
_WIKI_PAGE = re.compile(
    r"^(https?://[^/?#]+/[^?#]+?/(?:wiki|-/wikis)/)[^/?#]+(?:/[0-9a-f]{7,40})?/?(?:[?#]|$)"
)


def resolve_link(url: str, base_url: str | None) -> str | None:
    """The web address a quote's link ``url`` points at, quoted from ``base_url``; None
    when it is no web link or there is nothing to resolve it against."""
    url, base_url = url.strip(), (base_url or "").strip()
    if url.lower().startswith(("https://", "http://")):
        return url
    if ":" in url.split("/", 1)[0] or not _WEB.match(base_url):
        return None  # mailto:, javascript:, … or nothing to resolve against
    if url.startswith("/") and not url.startswith("//") and _FORGE_FILE.search(base_url):
        # an address on the team's documentation site ("/manual/purge-cache"), not a
        # path on the code host the quote links to: shown as text, never a broken link
        return None
    wiki = _WIKI_PAGE.match(base_url)
    # the wiki shows the page at "/wiki/Page", so "images/x.png" is "/wiki/images/x.png"
    # there, never a path under the page's revision
    return urljoin(wiki[1] if wiki else base_url.split("#", 1)[0], url)
