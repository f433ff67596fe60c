"""The Kubernetes manifests (deploy/kubernetes) validate offline, and their commands are ones ``serve`` takes.

Every resource of a Kubernetes API is checked against that API's own schema
(the ``kubernetes-validate`` package carries them; strict: an unknown field
is an error). The ServiceMonitor is the Prometheus Operator's, whose schema
that package does not carry: it is checked against the fields of its API
(monitoring.coreos.com/v1) the manifest uses. Each container's arguments,
with the environment the pod gives them, are parsed by the real ``tricktable
serve`` (``--print-config``), so a manifest can not name a flag that does not
exist or a value it refuses.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
import pytest
import yaml
from typer.testing import CliRunner

from tricktable.cli.main import app

ROOT = Path(__file__).resolve().parents[2]
MANIFESTS = ROOT / "deploy" / "kubernetes"
#: The Kubernetes version the manifests are checked against (the pod-index label needs 1.28 or later).
KUBERNETES = "1.31.0"
#: The ServiceMonitor fields the manifest uses, as monitoring.coreos.com/v1 defines them.
SERVICE_MONITOR = {
    "type": "object",
    "required": ["apiVersion", "kind", "metadata", "spec"],
    "additionalProperties": False,
    "properties": {
        "apiVersion": {"const": "monitoring.coreos.com/v1"},
        "kind": {"const": "ServiceMonitor"},
        "metadata": {"type": "object", "required": ["name"]},
        "spec": {
            "type": "object", "required": ["selector", "endpoints"], "additionalProperties": False,
            "properties": {
                "selector": {"type": "object", "additionalProperties": False, "properties": {
                    "matchLabels": {"type": "object", "additionalProperties": {"type": "string"}},
                    "matchExpressions": {"type": "array", "items": {
                        "type": "object", "required": ["key", "operator"], "additionalProperties": False,
                        "properties": {"key": {"type": "string"}, "operator": {"enum": ["In", "NotIn", "Exists",
                                                                                         "DoesNotExist"]},
                                       "values": {"type": "array", "items": {"type": "string"}}}}}}},
                "endpoints": {"type": "array", "minItems": 1, "items": {
                    "type": "object", "additionalProperties": False,
                    "properties": {"port": {"type": "string"}, "path": {"type": "string"},
                                   "interval": {"type": "string", "pattern": "^[0-9]+(ms|s|m|h)$"}}}},
            },
        },
    },
}
#: What the pods' environment gives the arguments' $(VAR) references (a sample pod of each).
POD_ENV = {"GAME_INDEX": "2", "POD_NAME": "tricktable-game-2", "POD_NAMESPACE": "tricktable",
           "TRICKTABLE_DATABASE_URL": "postgresql://tricktable:secret@db/tricktable"}


def documents() -> list[dict[str, Any]]:
    found = []
    for path in sorted(MANIFESTS.glob("*.yaml")):
        if path.name != "kustomization.yaml":
            found += [d for d in yaml.safe_load_all(path.read_text()) if d]
    return found


def containers(kind: str) -> list[dict[str, Any]]:
    return [c for d in documents() if d["kind"] == kind for c in d["spec"]["template"]["spec"]["containers"]]


@pytest.mark.parametrize("document", documents(), ids=lambda d: f"{d['kind']}/{d['metadata']['name']}")
def test_every_resource_validates_against_its_schema(document: dict[str, Any]) -> None:
    if document["apiVersion"].startswith("monitoring.coreos.com/"):
        jsonschema.validate(document, SERVICE_MONITOR)
    else:
        kubernetes_validate.validate(document, KUBERNETES, strict=True)


def test_the_kustomization_lists_every_manifest() -> None:
    kustomization = yaml.safe_load((MANIFESTS / "kustomization.yaml").read_text())
    assert sorted(kustomization["resources"]) == sorted(p.name for p in MANIFESTS.glob("*.yaml")
                                                         if p.name != "kustomization.yaml")


@pytest.mark.parametrize("kind", ["Deployment", "StatefulSet"])
def test_each_container_runs_a_serve_command_the_command_line_takes(kind: str) -> None:
    for container in containers(kind):
        args = [re.sub(r"\$\((\w+)\)", lambda m: POD_ENV[m.group(1)], a) for a in container["args"]]
        secret = {e["name"] for e in container["env"] if "secretKeyRef" in e.get("valueFrom", {})}
        assert secret == {"TRICKTABLE_DATABASE_URL"}  # the Secret reaches serve through its environment variable
        result = CliRunner().invoke(app, [*args, "--print-config"], env=POD_ENV)
        assert result.exit_code == 0, result.output
        assert 'database_url = "postgresql://tricktable:***@db/tricktable"' in result.output
        probes = {container["readinessProbe"]["httpGet"]["path"], container["livenessProbe"]["httpGet"]["path"]}
        assert probes == {"/readyz", "/healthz"}


def test_the_game_count_agrees_with_the_stateful_set() -> None:
    (game,) = [d for d in documents() if d["kind"] == "StatefulSet"]
    for kind in ("Deployment", "StatefulSet"):
        (container,) = containers(kind)
        args = container["args"]
        assert args[args.index("--games") + 1] == str(game["spec"]["replicas"]), kind
