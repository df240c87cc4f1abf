#!/usr/bin/env python3
"""Pin the overlays' images to digests, at release
(docs/OPERATIONS.md#pinning-the-base-and-the-deployed-images-by-digest).

Every entry of an overlay's ``images:`` that has a ``digest:`` is pinned: its ``newTag`` names the
tag (of ``newName``, else ``name``) that the digest is resolved from, and kustomize renders
``name:tag@digest``, which the runtime pulls by the digest alone. The overlays in git hold
placeholder digests (``sha256:000...``, no image); the release pipeline runs this after pushing the
API image:

    make pin-images ARGS="--tag readiness-api=0.2.0"     # set the API's tag, resolve every digest
    make pin-images ARGS=--check                          # fails while a placeholder is left

The digest of a tag is asked of the registry by ``crane digest``, ``skopeo inspect`` or ``docker
buildx imagetools inspect`` (the first on PATH, or ``--resolver``): for a multi-platform image,
the digest of its index, so each node pulls its own platform. Only the ``newTag:`` and ``digest:``
lines of the pinned entries change; comments and everything else stay as they are, and the result
is checked against the intended one before anything is written. One name pinned in several
overlays (prod, prod-sync) gets one digest.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
OVERLAYS = ROOT / "k8s" / "overlays"
PLACEHOLDER = "sha256:" + "0" * 64
"""What the overlays in git hold instead of a digest: no image has it, so a pod given it cannot start."""
DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
RESOLVERS = ("crane", "skopeo", "docker")

Resolve = Callable[[str], str]
"""An image reference (``name:tag``) to the digest the registry gives it now."""


class PinError(Exception):
    """Why nothing was pinned (nothing is written then)."""


@dataclass(frozen=True)
class Pinned:
    """An entry of an overlay's ``images:`` that has a ``digest:``."""

    overlay: Path
    name: str
    repository: str
    tag: str
    digest: str

    @property
    def reference(self) -> str:
        return f"{self.repository}:{self.tag}"


def pinned_entries(kustomization: Path) -> list[Pinned]:
    """The entries of ``kustomization``'s ``images:`` that are pinned (have a ``digest``)."""
    document = yaml.safe_load(kustomization.read_text()) or {}
    entries = []
    for entry in document.get("images") or []:
        if "digest" not in entry:
            continue
        if not entry.get("newTag"):
            raise PinError(f"{kustomization}: image {entry['name']}: a digest needs the newTag it is resolved from")
        entries.append(Pinned(kustomization.parent, entry["name"], entry.get("newName", entry["name"]),
                              str(entry["newTag"]), str(entry["digest"])))
    return entries


def pinned_overlays(root: Path = OVERLAYS) -> list[Path]:
    """The overlays with at least one pinned image (the production ones)."""
    return [path.parent for path in sorted(root.glob("*/kustomization.yaml")) if pinned_entries(path)]


def set_entry(text: str, name: str, values: dict[str, str]) -> str:
    """``text`` (a kustomization) with the ``values`` of the ``images:`` entry ``name`` replaced,
    line by line: every key in ``values`` must already be a line of that entry."""
    lines = text.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if re.match(r"images:\s*(#.*)?$", line)), None)
    if start is None:
        raise PinError("no top-level images: list")
    entry_indent: int | None = None
    inside = False
    found: set[str] = set()
    for i in range(start + 1, len(lines)):
        line = lines[i]
        if line.strip() and not line[0].isspace() and not line.startswith(("#", "-")):
            break  # the next top-level key
        item = re.match(r"(\s*)- name:\s*(\S+)\s*(#.*)?$", line)
        if item:
            inside = yaml.safe_load(item[2]) == name
            entry_indent = len(item[1])
            continue
        field = re.match(r"(\s*)(\w+):(\s*)(\S.*?)?(\s*#.*)?(\n?)$", line)
        if inside and field and entry_indent is not None and len(field[1]) > entry_indent:
            key = field[2]
            if key in values:
                quoted = json.dumps(values[key]) if key == "newTag" else values[key]
                lines[i] = f"{field[1]}{key}:{field[3] or ' '}{quoted}{field[5] or ''}{field[6]}"
                found.add(key)
    missing = set(values) - found
    if missing:
        raise PinError(f"image {name}: no {', '.join(sorted(missing))} line to set")
    return "".join(lines)


def resolver(name: str | None = None) -> Resolve:
    """The registry client ``name`` (crane, skopeo or docker), else the first on PATH."""
    name = name or next((tool for tool in RESOLVERS if shutil.which(tool)), None)
    if name is None:
        raise PinError(f"none of {', '.join(RESOLVERS)} is on PATH: install one (the release pipeline has docker)")
    commands: dict[str, Callable[[str], list[str]]] = {
        "crane": lambda ref: ["crane", "digest", ref],
        "skopeo": lambda ref: ["skopeo", "inspect", "--format", "{{.Digest}}", f"docker://{ref}"],
        # A plain {{.Manifest.Digest}} is ignored by some buildx versions (the full listing comes
        # out); its JSON form prints one quoted string.
        "docker": lambda ref: [
            "docker", "buildx", "imagetools", "inspect", ref, "--format", "{{json .Manifest.Digest}}"
        ],
    }

    def resolve(reference: str) -> str:
        result = subprocess.run(commands[name](reference), capture_output=True, text=True, timeout=120, check=False)
        if result.returncode != 0:
            raise PinError(f"{name} could not resolve {reference}: {result.stderr.strip()}")
        out = result.stdout.strip()
        return str(json.loads(out)) if name == "docker" and out.startswith('"') else out

    return resolve


def pin(overlays: Iterable[Path], resolve: Resolve, tags: dict[str, str] | None = None) -> list[Pinned]:
    """Resolve every pinned image of ``overlays`` (with the ``tags`` given by name instead of
    their ``newTag``) and write the digests; all or nothing. Returns what was pinned."""
    tags = dict(tags or {})
    plans: dict[Path, tuple[str, str, list[Pinned]]] = {}
    digests: dict[str, str] = {}
    for overlay in overlays:
        kustomization = overlay / "kustomization.yaml"
        text = kustomization.read_text()
        entries = pinned_entries(kustomization)
        updated, pinned = text, []
        for entry in entries:
            tag = tags.get(entry.name, entry.tag)
            reference = f"{entry.repository}:{tag}"
            if reference not in digests:
                digest = resolve(reference)
                if not DIGEST.fullmatch(digest) or digest == PLACEHOLDER:
                    raise PinError(f"{reference}: the resolver answered {digest!r}, not a sha256 digest")
                digests[reference] = digest
            updated = set_entry(updated, entry.name, {"newTag": tag, "digest": digests[reference]})
            pinned.append(Pinned(overlay, entry.name, entry.repository, tag, digests[reference]))
        _check_only_pins_changed(kustomization, text, updated, pinned)
        plans[kustomization] = (text, updated, pinned)
    unknown = set(tags) - {entry.name for _, _, pinned in plans.values() for entry in pinned}
    if unknown:
        raise PinError(f"--tag for an image no overlay pins: {', '.join(sorted(unknown))}")
    for kustomization, (text, updated, _) in plans.items():
        if updated != text:
            kustomization.write_text(updated)
    return [entry for _, _, pinned in plans.values() for entry in pinned]


def _check_only_pins_changed(kustomization: Path, before: str, after: str, pinned: list[Pinned]) -> None:
    """The edited text parses to the original with only the pinned entries' tag and digest new."""
    expected = yaml.safe_load(before)
    by_name = {entry.name: entry for entry in pinned}
    for entry in expected["images"]:
        if entry["name"] in by_name:
            entry["newTag"] = by_name[entry["name"]].tag
            entry["digest"] = by_name[entry["name"]].digest
    if yaml.safe_load(after) != expected:
        raise PinError(f"{kustomization}: editing its images: gave something else; nothing written")


def problems(overlays: Iterable[Path]) -> list[str]:
    """What keeps the overlays from being deployed: a placeholder or malformed digest, or one
    image pinned to different references in different overlays."""
    found: list[str] = []
    seen: dict[str, Pinned] = {}
    for overlay in overlays:
        for entry in pinned_entries(overlay / "kustomization.yaml"):
            where = f"{overlay.relative_to(ROOT) if overlay.is_relative_to(ROOT) else overlay}: {entry.name}"
            if entry.digest == PLACEHOLDER:
                found.append(f"{where}: placeholder digest (run make pin-images)")
            elif not DIGEST.fullmatch(entry.digest):
                found.append(f"{where}: {entry.digest!r} is not a sha256 digest")
            first = seen.setdefault(entry.name, entry)
            if (first.reference, first.digest) != (entry.reference, entry.digest):
                found.append(f"{where}: {entry.reference}@{entry.digest} but {first.overlay.name} has "
                             f"{first.reference}@{first.digest}")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], allow_abbrev=False)
    parser.add_argument("overlays", nargs="*", type=Path, help="overlay directories (default: every one that pins)")
    parser.add_argument("--tag", action="append", default=[], metavar="NAME=TAG",
                        help="set this image's tag first (the API's release tag: readiness-api=0.2.0)")
    parser.add_argument("--resolver", choices=RESOLVERS, help="registry client (default: the first on PATH)")
    parser.add_argument("--check", action="store_true", help="resolve nothing: fail if a placeholder is left")
    args = parser.parse_args(argv)
    overlays = args.overlays or pinned_overlays()
    try:
        if args.check:
            found = problems(overlays)
            for problem in found:
                print(f"pin-images: {problem}", file=sys.stderr)
            return 1 if found else 0
        if any("=" not in item for item in args.tag):
            parser.error("--tag takes NAME=TAG")
        tags = {name: tag for name, _, tag in (item.partition("=") for item in args.tag)}
        for entry in pin(overlays, resolver(args.resolver), tags):
            print(f"pinned {entry.overlay.name}: {entry.name} = {entry.reference}@{entry.digest}")
    except PinError as error:
        print(f"pin-images: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
