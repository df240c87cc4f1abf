"""The alert rules (k8s/components/alerts/prometheusrule.yaml, docs/OPERATIONS.md#alerts): the rule
groups of the PrometheusRule, written out as a Prometheus rules file, pass `promtool check rules`,
and their unit tests (tests/fixtures/alerts_test.yml, alerts_test_days.yml, alerts_test_slo.yml)
pass `promtool test rules`: series fed in, each alert firing when it should, with its labels and
annotations, and not before or otherwise. The rules name only metrics the service exports, with
their labels, and the objects the manifests create; each alert's runbook_url leads to its own
section of docs/OPERATIONS.md; the objectives' burn-rate alerts pair each window with one twelfth
of it, at the burn rate and budget docs/OPERATIONS.md#objectives gives.

promtool comes from Debian's package `prometheus`: `make test` installs it when missing (as root);
without it the promtool tests skip, saying how to install it, and fail under READINESS_NO_SKIPS.
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from readiness.http import handlers
from readiness.metrics import Metrics
from tests.conftest import ROOT, unavailable
from tests.test_docs import heading_id, unreachable

RULE = ROOT / "k8s" / "components" / "alerts" / "prometheusrule.yaml"
FIXTURES = ROOT / "tests" / "fixtures"
UNIT_TESTS = sorted(FIXTURES.glob("alerts_test*.yml"))
RULES_FILE = "alerts.rules.yml"
"""The name the unit tests' rule_files give the extracted rules."""
DEBIAN_PROMTOOL = Path("/usr/bin/promtool")
OPERATIONS_ROUTES = "healthz|readyz|metrics"
"""The routes of the operations port, left out of the public rates."""

Doc = dict[str, Any]


def promtool() -> str:
    found = shutil.which("promtool") or (str(DEBIAN_PROMTOOL) if DEBIAN_PROMTOOL.is_file() else None)
    if found is None:
        unavailable("promtool is not installed (Debian: apt-get install prometheus; `make test` installs it as root)")
    return found


def rule_groups(path: Path = RULE) -> Doc:
    """The PrometheusRule's rule groups as a Prometheus rules file (its ``spec`` is one)."""
    (document,) = (doc for doc in yaml.safe_load_all(path.read_text()) if doc)
    assert (document["apiVersion"], document["kind"]) == ("monitoring.coreos.com/v1", "PrometheusRule")
    return {"groups": document["spec"]["groups"]}


def rules(kind: str) -> list[Doc]:
    """Every alerting (``kind`` "alert") or recording ("record") rule."""
    return [rule for group in rule_groups()["groups"] for rule in group["rules"] if kind in rule]


def write_rules(directory: Path) -> Path:
    path = directory / RULES_FILE
    path.write_text(yaml.safe_dump(rule_groups(), sort_keys=False))
    return path


def run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    # 900 s: promtool takes about 40 s for the three files alone, and over 300 s was seen under a loaded suite.
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=900, check=False)


# --- promtool -------------------------------------------------------------------------------


def test_rules_pass_promtool_check(tmp_path: Path) -> None:
    path = write_rules(tmp_path)
    result = run([promtool(), "check", "rules", str(path)], tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"SUCCESS: {len(rules('alert')) + len(rules('record'))} rules found" in result.stdout


def test_rules_pass_their_unit_tests(tmp_path: Path) -> None:
    write_rules(tmp_path)
    for fixture in UNIT_TESTS:
        shutil.copy(fixture, tmp_path / fixture.name)
    result = run([promtool(), "test", "rules", *(fixture.name for fixture in UNIT_TESTS)], tmp_path)
    report = result.stdout + result.stderr
    assert result.returncode == 0, report
    assert report.count("SUCCESS") == len(UNIT_TESTS), report


def test_promtool_fails_a_rule_that_fires_otherwise(tmp_path: Path) -> None:
    # The unit tests pass by finding what they expect: a rule changed must fail them. Rules that
    # count the operations routes' requests (probes, scrapes) fire where the tests say they must not.
    # Only the fixtures that feed such requests are run: the others cannot tell, and take seconds.
    groups = rule_groups()
    for group in groups["groups"]:
        for rule in group["rules"]:
            rule["expr"] = str(rule["expr"]).replace(f', route!~"{OPERATIONS_ROUTES}"', "")
    (tmp_path / RULES_FILE).write_text(yaml.safe_dump(groups, sort_keys=False))
    probed = [fixture for fixture in UNIT_TESTS if re.search(r'route="(healthz|readyz|metrics)"', fixture.read_text())]
    assert probed
    for fixture in probed:
        shutil.copy(fixture, tmp_path / fixture.name)
    result = run([promtool(), "test", "rules", *(fixture.name for fixture in probed)], tmp_path)
    report = result.stdout + result.stderr
    assert result.returncode != 0 and "FAILED" in report, report


# --- what the unit tests cover (no promtool needed) -------------------------------------------


@functools.cache
def _alert_tests() -> list[tuple[str, Doc]]:
    """Every alert_rule_test of the unit tests, with its test group's name."""
    found = []
    for fixture in UNIT_TESTS:
        document = yaml.safe_load(fixture.read_text())
        assert document["rule_files"] == [RULES_FILE], fixture.name
        for group in document["tests"]:
            found.extend((group["name"], case) for case in group.get("alert_rule_test", []))
    return found


@pytest.mark.parametrize("alert", [rule["alert"] for rule in rules("alert")])
def test_every_alert_is_tested_firing_and_not_firing(alert: str) -> None:
    cases = [case for _, case in _alert_tests() if case["alertname"] == alert]
    assert any(case.get("exp_alerts") for case in cases), f"{alert}: no test where it fires"
    assert any(not case.get("exp_alerts") for case in cases), f"{alert}: no test where it must not fire"


def test_unit_tests_name_only_alerts_that_exist() -> None:
    names = {rule["alert"] for rule in rules("alert")}
    assert {case["alertname"] for _, case in _alert_tests()} <= names


# --- the rules themselves ---------------------------------------------------------------------


@pytest.mark.parametrize("alert", rules("alert"), ids=lambda rule: rule["alert"])
def test_every_alert_says_how_bad_what_and_where_to_read_on(alert: Doc) -> None:
    assert re.fullmatch(r"Readiness[A-Z]\w+", alert["alert"])
    assert alert["labels"]["severity"] in {"warning", "critical"}
    assert set(alert["annotations"]) == {"summary", "description", "runbook_url"}
    assert re.fullmatch(r"\d+[mh]", alert["for"]), "a for: duration, so a blip does not page"


RUNBOOKS = ROOT / "docs" / "OPERATIONS.md"


@pytest.mark.parametrize("alert", rules("alert"), ids=lambda rule: rule["alert"])
def test_every_runbook_url_leads_to_the_alerts_own_section(alert: Doc) -> None:
    # runbook_url is the doc's path in the repository and a GitHub heading id: a heading named
    # after the alert, under "Runbooks" (the id GitHub gives it: lower case, as tests/test_docs.py
    # computes it).
    url = alert["annotations"]["runbook_url"]
    doc, _, anchor = url.partition("#")
    assert ROOT / doc == RUNBOOKS, url
    assert anchor == heading_id(f"`{alert['alert']}`"), url
    assert unreachable(RUNBOOKS, anchor) is None, f"{url}: no such heading in docs/OPERATIONS.md"


def test_a_runbook_url_to_a_missing_heading_is_caught() -> None:
    assert unreachable(RUNBOOKS, "readinessnosuchalert") is not None
    assert unreachable(RUNBOOKS, "runbooks") is None


def test_recording_rules_are_named_for_the_service() -> None:
    for rule in rules("record"):
        assert re.fullmatch(r"readiness:[a-z_]+(:[a-z0-9_]+)?", rule["record"]), rule["record"]


def _exported() -> dict[str, set[str]]:
    """The service's metric samples (readiness/metrics.py) and their label names, once every
    labelled family has a sample."""
    metrics = Metrics(snapshot_id=lambda: "2026-11", breaker_open=lambda: False)
    metrics.observe("v1", "GET", 200, 0.001)
    metrics.cache.labels("memory", "hit").inc()
    exported: dict[str, set[str]] = {}
    for family in text_string_to_metric_families(metrics.render().decode()):
        for sample in family.samples:
            exported.setdefault(sample.name, set()).update(sample.labels)
    return exported


SELECTOR = re.compile(r"\b(readiness_[a-z_]+)\b(\{[^}]*\})?")


def test_rules_select_only_metrics_and_labels_the_service_exports() -> None:
    exported = _exported()
    used = 0
    for rule in [*rules("alert"), *rules("record")]:
        for name, matchers in SELECTOR.findall(str(rule["expr"])):
            used += 1
            assert name in exported, f"{rule.get('alert') or rule.get('record')}: {name} is not exported"
            labels = set(re.findall(r"(\w+)\s*(?:=|!=|=~|!~)\s*\"", matchers))
            assert labels <= exported[name], (name, labels - exported[name])
    assert used >= 8


def test_operations_routes_left_out_are_the_operations_handlers() -> None:
    # route!~"healthz|readyz|metrics": the probes' and the scrapes' requests.
    labels = {handlers.HealthHandler.route_label, handlers.ReadyHandler.route_label,
              handlers.MetricsHandler.route_label}
    assert labels == set(OPERATIONS_ROUTES.split("|"))
    for rule in [*rules("alert"), *rules("record")]:
        for matchers in re.findall(r"readiness_http_requests_total(\{[^}]*\})", str(rule["expr"])):
            assert f'route!~"{OPERATIONS_ROUTES}"' in matchers, rule


def _manifest(name: str) -> Doc:
    (document,) = (doc for doc in yaml.safe_load_all((ROOT / "k8s" / "base" / name).read_text()) if doc)
    return document


def test_rules_name_the_objects_the_manifests_create() -> None:
    expressions = "\n".join(str(rule["expr"]) for rule in [*rules("alert"), *rules("record")])
    # The refresh CronJob (kube-state-metrics' cronjob and owner_name labels).
    cronjob = _manifest("refresh-cronjob.yaml")["metadata"]["name"]
    assert f'cronjob="{cronjob}"' in expressions and f'owner_name="{cronjob}"' in expressions
    # ingress-nginx's requests for the Ingress, sent to the edge's Service.
    ingress = _manifest("api-ingress.yaml")
    (path,) = ingress["spec"]["rules"][0]["http"]["paths"]
    service = path["backend"]["service"]["name"]
    assert service == _manifest("edge-service.yaml")["metadata"]["name"]
    assert f'ingress="{ingress["metadata"]["name"]}", service="{service}"' in expressions
    # Every ingress-nginx series the rules read is the Ingress' (a name in quotes is a label value).
    selectors = re.findall(r'(?<!")\bnginx_ingress_controller_\w+(\{[^}]*\})?', expressions)
    assert selectors and all(f'ingress="{ingress["metadata"]["name"]}"' in found for found in selectors)
    # kube-state-metrics' Deployments: the API, the edge and Redis, each one the base creates.
    deployments = {
        doc["metadata"]["name"]
        for path in sorted((ROOT / "k8s" / "base").glob("*.yaml"))
        for doc in yaml.safe_load_all(path.read_text())
        if doc and doc["kind"] == "Deployment"
    }
    named = set(re.findall(r'\bdeployment="([^"]+)"', expressions))
    assert named == deployments == {"readiness-api", "readiness-edge", "redis"}
    # Prometheus' targets of the API pods: the Deployment's pods, <name>-<hash>-<hash>.
    api = _manifest("api-deployment.yaml")["metadata"]["name"]
    assert set(re.findall(r'\bup\{pod=~"([^"]+)"\}', expressions)) == {f"{api}-.+"}


# --- the objectives' burn-rate alerts ---------------------------------------------------------

BUDGETS = {"errors": 0.001, "slow": 0.01}
"""Each objective's error budget, the share of requests it may miss over 30 days: 99.9 % not 5xx,
99 % within 250 ms (docs/OPERATIONS.md#objectives)."""
BURNS = {
    "ReadinessAvailabilityBudgetBurn": ("errors", {"1h": 14.4, "6h": 6.0}),
    "ReadinessAvailabilityBudgetSlowBurn": ("errors", {"1d": 3.0, "3d": 1.0}),
    "ReadinessLatencyBudgetBurn": ("slow", {"1h": 14.4, "6h": 6.0}),
    "ReadinessLatencyBudgetSlowBurn": ("slow", {"1d": 3.0, "3d": 1.0}),
}
"""The long windows and burn rates of docs/OPERATIONS.md#alerts (the SRE workbook's)."""
SECONDS = {"m": 60, "h": 3600, "d": 86400}
BRANCH = re.compile(
    r'label_replace\(\s*readiness:ingress_(\w+):ratio_rate(\w+) > ([\d.]+)(?: \* ([\d.]+))?'
    r'\s+and readiness:ingress_(\w+):ratio_rate(\w+) > ([\d.]+)(?: \* ([\d.]+))?,'
    r'\s*"window", "(\w+)", "", ""\s*\)'
)


def _seconds(window: str) -> int:
    return int(window[:-1]) * SECONDS[window[-1]]


@pytest.mark.parametrize("name", sorted(BURNS))
def test_burn_rate_alerts_pair_each_long_window_with_a_twelfth_of_it(name: str) -> None:
    (alert,) = (rule for rule in rules("alert") if rule["alert"] == name)
    ratio, expected = BURNS[name]
    branches = BRANCH.findall(str(alert["expr"]))
    assert len(branches) == len(expected) == str(alert["expr"]).count("label_replace"), alert["expr"]
    found = {}
    for long_ratio, long_window, long_factor, long_budget, short_ratio, short_window, short_factor, \
            short_budget, label in branches:
        assert long_ratio == short_ratio == ratio and label == long_window
        assert _seconds(short_window) * 12 == _seconds(long_window)
        for factor, budget in ((long_factor, long_budget), (short_factor, short_budget)):
            # "14.4 * 0.001", or "0.001" alone at a burn rate of 1.
            burn, share = (float(factor), float(budget)) if budget else (1.0, float(factor))
            assert share == BUDGETS[ratio]
            found.setdefault(long_window, set()).add(burn)
    assert found == {window: {burn} for window, burn in expected.items()}


def test_each_window_is_recorded_over_that_window() -> None:
    recorded = {rule["record"]: str(rule["expr"]) for rule in rules("record")}
    used = set()
    for name in BURNS:
        (alert,) = (rule for rule in rules("alert") if rule["alert"] == name)
        used |= set(re.findall(r"readiness:ingress_\w+:ratio_rate\w+", str(alert["expr"])))
    assert used == {name for name in recorded if name.startswith("readiness:ingress_")}
    for name in used:
        window = name.rsplit("ratio_rate", 1)[1]
        assert set(re.findall(r"\[(\w+)\]", recorded[name])) == {window}, name
