"""Live sync with a doccano server: push a run as a project, pull its annotations back.

push: create (or reuse, by name) a sequence-labelling project, create the tagset's
labels (plus the UNTAGGED placeholder) in the tagset's colours, and upload the run's
documents with the chosen annotator's tags. Uploading twice would duplicate the
documents, so a project that already holds examples is refused unless asked.
pull: download the project's export (one file per doccano user) and import each file
as that user's tags (or under a name mapping), checked line by line against the store.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

from workbench.annotation.storage import AnnotationStore
from workbench.annotation.tagset import guidelines_text
from workbench.doccano.client import DoccanoClient, Project
from workbench.doccano.format import PLACEHOLDER, PLACEHOLDER_COLOR, ParsedExport, export_lines, parse_export
from workbench.infra import jsonl
from workbench.infra.errors import WorkbenchError


@dataclass(frozen=True, slots=True)
class PushResult:
    project: Project
    documents: int
    spans: int
    tagged: int  # spans that went up with a real tag (not the placeholder)


def project_name(run_id: str) -> str:
    return f"workbench run {run_id}"


def push(store: AnnotationStore, client: DoccanoClient, run_id: str, *, annotator: str | None = None,
         name: str | None = None, allow_existing: bool = False) -> PushResult:
    lines = export_lines(store, run_id, annotator)
    run_id = lines[0]["run_id"]
    name = name or project_name(run_id)
    project = next((p for p in client.projects() if p.name == name), None)
    if project is None:
        project = client.create_project(name, f"Error annotation of {lines[0]['system']} (run {run_id})",
                                        guideline=guidelines_text())
    elif client.count_examples(project.id) and not allow_existing:
        raise WorkbenchError(f"doccano project {name!r} (id {project.id}) already holds documents; pull from it, "
                             "or push under another --project name")
    client.ensure_labels(project.id, [(t.tag, t.color) for t in store.tagset.tags] + [(PLACEHOLDER, PLACEHOLDER_COLOR)])
    content = jsonl.dumps_lines(lines).encode("utf-8")
    client.upload_jsonl(project.id, content, filename=f"{run_id}.jsonl")
    spans = sum(len(line["label"]) for line in lines)
    tagged = sum(1 for line in lines for *_, tag in line["label"] if tag != PLACEHOLDER)
    return PushResult(project, len(lines), spans, tagged)


def pull(store: AnnotationStore, client: DoccanoClient, project: int | str, *,
         annotators: dict[str, str] | None = None) -> dict[str, ParsedExport]:
    """Import every member's file; `annotators` maps doccano user → workbench annotator name."""
    if isinstance(project, str):
        found = [p for p in client.projects() if p.name == project or str(p.id) == project]
        if not found:
            raise WorkbenchError(f"no doccano project named {project!r} at {client.url}")
        project = found[0].id
    files = client.download_jsonl(project)
    if not files:
        raise WorkbenchError(f"doccano project {project}: the export holds no JSONL file")
    parsed = {}
    for filename, lines in sorted(files.items()):
        user = PurePosixPath(filename).stem
        name = (annotators or {}).get(user, user)
        parsed[name] = parse_export(store, lines, name, f"doccano project {project}: {filename}")
    # One transaction for all files: a bad line anywhere leaves the store untouched.
    everything = [a for p in parsed.values() for a in p.annotations]
    where = [w for p in parsed.values() for w in p.where]
    store.save_many(everything, where)
    return parsed


def user_mapping(pairs) -> dict[str, str]:
    """`--as USER=NAME` options as {doccano user: workbench annotator}; WorkbenchError for a bad one."""
    out = {}
    for pair in pairs:
        user, sep, name = pair.partition("=")
        if not sep or not user.strip() or not name.strip():
            raise WorkbenchError(f"--as {pair!r}: write it as USER=NAME (the doccano user, then the annotator "
                                 "name to store the tags under), e.g. --as admin=anna")
        if user.strip() in out:
            raise WorkbenchError(f"--as names doccano user {user.strip()!r} twice")
        out[user.strip()] = name.strip()
    return out


@dataclass(frozen=True, slots=True)
class SyncResult:
    project: str
    created: PushResult | None  # the push, when the project did not exist yet
    pulled: dict[str, ParsedExport]


def sync(store: AnnotationStore, client: DoccanoClient, run_ref: str, *, project: str | None = None,
         annotator: str | None = None, annotators: dict[str, str] | None = None) -> SyncResult:
    """Push the run (id or prefix) if its project does not exist yet, then pull the project's annotations."""
    name = project or project_name(store.run_store.resolve_run(run_ref).run_id)
    created = None
    if not any(p.name == name for p in client.projects()):
        created = push(store, client, run_ref, annotator=annotator, name=name)
    return SyncResult(name, created, pull(store, client, name, annotators=annotators))


def describe_pull(parsed: dict[str, ParsedExport]) -> list[str]:
    """One line per annotator of a pull or import, as the CLI prints it."""
    return [f"{name}: {len(p.annotations)} tags imported, {p.untagged} still untagged"
            + (f", {p.resolved} with several tags reduced by precedence" if p.resolved else "")
            for name, p in parsed.items()]
