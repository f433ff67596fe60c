"""The Kubernetes manifests (deploy/kubernetes and its Agones overlay) validate offline, and their commands are ones
``serve`` takes.

Every resource of a Kubernetes API is checked against that API's own schema
(the ``kubernetes-validate`` package carries them; strict: an unknown field
is an error). The ServiceMonitor is the Prometheus Operator's, whose schema
that package does not carry: it is checked against the fields of its API
(monitoring.coreos.com/v1) the manifest uses. The Agones Fleet is checked
likewise against the fields of agones.dev/v1 it uses, as Agones' reference
documents them (agones.dev/site/docs/reference/fleet/ and gameserver/), and
its pod template, strictly, as a Kubernetes PodTemplate. Each container's
arguments, with the environment the pod gives them, are parsed by the real
``tricktable serve`` (``--print-config``), so a manifest can not name a flag
that does not exist or a value it refuses.
"""

from __future__ import annotations

import json
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
AGONES = MANIFESTS / "agones"


def strict(schema: Any) -> Any:
    """``schema`` refusing unknown fields where Kubernetes does (``kubectl apply --validate=strict``): in every
    object whose fields it lists, unless it keeps unknown fields (``x-kubernetes-preserve-unknown-fields``)."""
    if isinstance(schema, list):
        return [strict(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    found = {k: strict(v) for k, v in schema.items()}
    if "properties" in found and "additionalProperties" not in found \
            and not found.get("x-kubernetes-preserve-unknown-fields"):
        found["additionalProperties"] = False
    return found


_COUNT = {"type": "integer", "minimum": 0}
_INT_OR_PERCENT = {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "string", "pattern": "^[0-9]+%$"}]}
_LABELS = {"type": "object", "additionalProperties": {"type": "string"}}
#: The Fleet fields the manifest uses, as agones.dev/v1 defines them (the pod template is checked apart).
FLEET_SCHEMA = strict({
    "type": "object",
    "required": ["apiVersion", "kind", "metadata", "spec"],
    "properties": {
        "apiVersion": {"const": "agones.dev/v1"},
        "kind": {"const": "Fleet"},
        "metadata": {"type": "object", "required": ["name"],
                     "properties": {"name": {"type": "string"}, "namespace": {"type": "string"},
                                    "labels": _LABELS, "annotations": _LABELS}},
        "spec": {
            "type": "object",
            "required": ["template"],
            "properties": {
                "replicas": _COUNT,
                "scheduling": {"enum": ["Packed", "Distributed"]},
                "strategy": {"type": "object", "properties": {
                    "type": {"enum": ["RollingUpdate", "Recreate"]},
                    "rollingUpdate": {"type": "object", "properties": {"maxSurge": _INT_OR_PERCENT,
                                                                       "maxUnavailable": _INT_OR_PERCENT}}}},
                "template": {
                    "type": "object",
                    "required": ["spec"],
                    "properties": {
                        "metadata": {"type": "object", "properties": {"labels": _LABELS, "annotations": _LABELS}},
                        "spec": {
                            "type": "object",
                            "required": ["template"],
                            "properties": {
                                "container": {"type": "string"},
                                "ports": {"type": "array", "items": {
                                    "type": "object",
                                    "required": ["name"],
                                    "properties": {
                                        "name": {"type": "string"},
                                        "portPolicy": {"enum": ["Dynamic", "Static", "Passthrough", "None"]},
                                        "container": {"type": "string"},
                                        "containerPort": {"type": "integer", "minimum": 1, "maximum": 65535},
                                        "hostPort": {"type": "integer", "minimum": 1, "maximum": 65535},
                                        "protocol": {"enum": ["UDP", "TCP", "TCPUDP"]},
                                    }}},
                                "health": {"type": "object", "properties": {
                                    "disabled": {"type": "boolean"}, "initialDelaySeconds": _COUNT,
                                    "periodSeconds": {"type": "integer", "minimum": 1},
                                    "failureThreshold": {"type": "integer", "minimum": 1}}},
                                "template": {"type": "object"},  # a PodTemplateSpec: validated as Kubernetes' own
                            },
                        },
                    },
                },
            },
        },
    },
})
#: The Secret the processes read their forwarding secret from, as a mounted file.
FORWARDING_SECRET = "tricktable-forwarding"
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
POD_ENV = {"GAME_INDEX": "2", "POD_NAME": "tricktable-game-2", "POD_NAMESPACE": "tricktable", "POD_IP": "10.1.2.3",
           "TRICKTABLE_DATABASE_URL": "postgresql://tricktable:secret@db/tricktable"}


def documents(folder: Path = MANIFESTS) -> list[dict[str, Any]]:
    found = []
    for path in sorted(folder.glob("*.yaml")):
        if path.name != "kustomization.yaml":
            found += [d for d in yaml.safe_load_all(path.read_text()) if d]
    return found


def pod_template(document: dict[str, Any]) -> dict[str, Any]:
    """The pod template of a workload: a Deployment's or StatefulSet's, or a Fleet's GameServers'."""
    template: dict[str, Any] = document["spec"]["template"]
    return template["spec"]["template"] if document["kind"] == "Fleet" else template


def containers(kind: str) -> list[dict[str, Any]]:
    """The containers of every ``kind`` workload that run ``tricktable serve`` (not an Agones helper)."""
    return [c for d in documents() + documents(AGONES) if d["kind"] == kind
            for c in pod_template(d)["spec"]["containers"] if c.get("args", [""])[0] == "serve"]


def overlaid() -> list[dict[str, Any]]:
    """The Agones overlay's resources: the base's without those its patches delete, and its own."""
    kustomization = yaml.safe_load((AGONES / "kustomization.yaml").read_text())
    deleted = set()
    for patch in kustomization["patches"]:
        target = yaml.safe_load(patch["patch"])
        assert target.pop("$patch") == "delete"
        deleted.add((target["kind"], target["metadata"]["name"]))
    base = documents()
    assert deleted <= {(d["kind"], d["metadata"]["name"]) for d in base}  # each names a resource of the base
    assert sorted(kustomization["resources"]) == sorted(["..", *(p.name for p in AGONES.glob("*.yaml")
                                                                  if p.name != "kustomization.yaml")])
    return [d for d in base if (d["kind"], d["metadata"]["name"]) not in deleted] + documents(AGONES)


@pytest.mark.parametrize("document", documents() + documents(AGONES),
                         ids=lambda d: f"{d['kind']}/{d['metadata']['name']}")
def test_every_resource_validates_against_its_schema(document: dict[str, Any]) -> None:
    if document["apiVersion"].startswith("monitoring.coreos.com/"):
        jsonschema.validate(document, SERVICE_MONITOR)
    elif document["apiVersion"].startswith("agones.dev/"):
        jsonschema.validate(document, FLEET_SCHEMA)
        kubernetes_validate.validate({"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "game"},
                                      "template": pod_template(document)}, KUBERNETES, strict=True)
    else:
        kubernetes_validate.validate(document, KUBERNETES, strict=True)


def test_the_fleet_schema_refuses_what_agones_would() -> None:
    (fleet,) = documents(AGONES)
    wrong = json.loads(json.dumps(fleet))
    wrong["spec"]["template"]["spec"]["ports"][0]["portPolicy"] = "Sometimes"
    with pytest.raises(jsonschema.ValidationError, match="'Sometimes' is not one of"):
        jsonschema.validate(wrong, FLEET_SCHEMA)
    misspelt = json.loads(json.dumps(fleet))
    misspelt["spec"]["template"]["spec"]["health"]["periodSecond"] = 5
    with pytest.raises(jsonschema.ValidationError, match="'periodSecond' was unexpected"):
        jsonschema.validate(misspelt, FLEET_SCHEMA)


def test_the_agones_overlay_runs_the_game_processes_as_a_fleet_the_lobbies_count() -> None:
    kinds = [d["kind"] for d in overlaid()]
    assert "StatefulSet" not in kinds and kinds.count("Fleet") == 1 and kinds.count("Deployment") == 1
    (fleet,) = [d for d in overlaid() if d["kind"] == "Fleet"]
    for kind in ("Deployment", "Fleet"):
        (container,) = containers(kind)
        args = container["args"]
        assert args[args.index("--games") + 1] == str(fleet["spec"]["replicas"]), kind
    (game,) = containers("Fleet")
    assert "--claim-game-index" in game["args"] and "--game-index" not in game["args"]


def test_the_kustomization_lists_every_manifest() -> None:
    kustomization = yaml.safe_load((MANIFESTS / "kustomization.yaml").read_text())
    assert sorted(kustomization["resources"]) == sorted(p.name for p in MANIFESTS.glob("*.yaml")
                                                         if p.name != "kustomization.yaml")


def secret_mounted(kind: str, container: dict[str, Any], path: str) -> bool:
    """Whether ``path`` is in a volume ``container`` mounts from the forwarding Secret."""
    (workload,) = [d for d in documents() + documents(AGONES) if d["kind"] == kind]
    volumes = {v["name"]: v for v in pod_template(workload)["spec"].get("volumes", [])}
    return any(path.startswith(m["mountPath"] + "/")
               and volumes.get(m["name"], {}).get("secret", {}).get("secretName") == FORWARDING_SECRET
               for m in container["volumeMounts"])


@pytest.mark.parametrize("kind", ["Deployment", "StatefulSet", "Fleet"])
def test_each_container_runs_a_serve_command_the_command_line_takes(kind: str, tmp_path: Path) -> None:
    secret_file = tmp_path / "secret"
    secret_file.write_text("s" * 64)
    for container in containers(kind):
        args = [re.sub(r"\$\((\w+)\)", lambda m: POD_ENV[m.group(1)], a) for a in container["args"]]
        mounted = args[args.index("--forwarding-secret-file") + 1]
        assert secret_mounted(kind, container, mounted)  # read from the Secret, as a file
        args[args.index(mounted)] = str(secret_file)
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
