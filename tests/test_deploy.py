"""The deployment files under deploy/: every `arena` command they run (compose services built
from deploy/Dockerfile, Kubernetes containers of the arena image, the Dockerfile's own) parses
with the program's real command line, unknown flags and bad values refused; the proxies in
front of the servers keep websockets open an hour; every server is probed on /healthz; and the
Redis Cluster the files make is the one the servers are pointed at."""

from __future__ import annotations

import contextlib
import io
import json
import re
import shlex
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from server.cli import command_parser
from server.commands import DEFAULT_PORT

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
DOCKERFILE = "deploy/Dockerfile"
HOUR = 3600
VARIABLE = re.compile(r"\$\((\w+)\)")  # Kubernetes puts a container's env var in its args so
WORKLOADS = {"Deployment", "StatefulSet", "DaemonSet", "Job"}
# The `arena` subcommands each file runs: a file that runs none is checked to run none.
EXPECTED = {
    "compose.yaml": {"serve", "worker"},
    "compose-cluster.yaml": {"serve", "worker"},
    "k8s/server.yaml": {"serve"},
    "k8s/worker.yaml": {"worker"},
}


@dataclass(frozen=True)
class Run:
    """A command the arena image runs: where it is written, its arguments after `arena`, and
    for a Kubernetes container, the env vars it defines."""

    where: str
    argv: tuple[str, ...]
    env: frozenset[str] = frozenset()


def documents(path: Path) -> list[dict[str, Any]]:
    with path.open() as file:
        return [doc for doc in yaml.safe_load_all(file) if doc]


def yaml_files() -> list[Path]:
    return sorted(DEPLOY.rglob("*.yaml"))


def dockerfile() -> tuple[list[str], list[str]]:
    """The image's ENTRYPOINT and CMD."""
    found = {}
    for line in (ROOT / DOCKERFILE).read_text().splitlines():
        word, _, rest = line.partition(" ")
        if word in ("ENTRYPOINT", "CMD"):
            found[word] = json.loads(rest)
    return found["ENTRYPOINT"], found["CMD"]


def runs(path: Path) -> list[Run]:
    """The `arena` commands a compose file or a set of Kubernetes manifests runs."""
    entrypoint, default = dockerfile()
    assert entrypoint == ["arena"]
    found = []
    for doc in documents(path):
        for name, service in doc.get("services", {}).items():
            if service.get("build", {}).get("dockerfile") == DOCKERFILE:
                command = service.get("command", default)
                argv = shlex.split(command) if isinstance(command, str) else command
                found.append(Run(f"{path.name}: {name}", tuple(argv)))
        if doc.get("kind") in WORKLOADS:
            for container in pod_spec(doc)["containers"]:
                if image_name(container["image"]) != "arena":
                    continue
                command, args = container.get("command"), container.get("args", default)
                if command is not None:
                    assert command[:1] == entrypoint, f"{container['name']}: {command}"
                    args = [*command[1:], *container.get("args", [])]
                env = frozenset(variable["name"] for variable in container.get("env", []))
                where = f"{path.name}: {doc['metadata']['name']}/{container['name']}"
                found.append(Run(where, tuple(str(arg) for arg in args), env))
    return found


def pod_spec(doc: dict[str, Any]) -> dict[str, Any]:
    spec: dict[str, Any] = doc["spec"]["template"]["spec"]
    return spec


def image_name(image: str) -> str:
    """`registry.example/team/arena:1.2` -> `arena`."""
    return image.rpartition("/")[2].partition(":")[0].partition("@")[0]


@cache
def parser() -> Any:
    return command_parser()


def refusal(run: Run) -> str | None:
    """Why `arena` would refuse the command (the parser's message), or None."""
    argv = []
    for arg in run.argv:
        for name in VARIABLE.findall(arg):
            if name not in run.env:
                return f"$({name}) is not an env var of the container"
        argv.append(VARIABLE.sub("secret", arg))
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(io.StringIO()):
        try:
            parser().parse_args(argv)
        except SystemExit:
            return stderr.getvalue().strip().splitlines()[-1] if stderr.getvalue() else "exit"
    return None


def option(argv: tuple[str, ...], flag: str) -> str | None:
    return argv[argv.index(flag) + 1] if flag in argv else None


@pytest.mark.parametrize("path", yaml_files(), ids=lambda p: str(p.relative_to(DEPLOY)))
def test_every_command_of_the_image_is_a_real_arena_command(path: Path) -> None:
    found = runs(path)
    assert {run.argv[0] for run in found} == EXPECTED.get(str(path.relative_to(DEPLOY)), set())
    for run in found:
        assert refusal(run) is None, f"{run.where}: arena {' '.join(run.argv)}: {refusal(run)}"


def test_the_images_own_command_is_a_real_arena_command() -> None:
    assert refusal(Run(DOCKERFILE, tuple(dockerfile()[1]))) is None


@pytest.mark.parametrize(
    ("command", "why"),
    [
        ("serve --host 0.0.0.0 --made-up-flag", "unrecognized arguments: --made-up-flag"),
        ("serve --port eighty", "--port"),
        ("serve --gc sometimes", "--gc"),
        ("worker --redis-url redis://redis:6379 --workers 0", "unrecognized arguments"),
        ("serv --host 0.0.0.0", "invalid choice: 'serv'"),
        ("serve --redis-url redis://:$(REDIS_PASSWORD)@redis:6379", "$(REDIS_PASSWORD)"),
    ],
)
def test_a_made_up_command_is_refused(command: str, why: str) -> None:
    message = refusal(Run("test", tuple(shlex.split(command))))
    assert message is not None
    assert why in message


@pytest.mark.parametrize(
    ("name", "good", "bad"),
    [
        ("compose-cluster.yaml", '"--workers", "0"', '"--workers", "0", "--replicas", "2"'),
        ("k8s/server.yaml", "- --port\n", "- --ports\n"),
    ],
)
def test_a_file_with_a_made_up_flag_fails(tmp_path: Path, name: str, good: str, bad: str) -> None:
    text = (DEPLOY / name).read_text()
    assert good in text
    copy = tmp_path / Path(name).name
    copy.write_text(text.replace(good, bad, 1))
    refused = [refusal(run) for run in runs(copy)]
    assert any(message and "unrecognized arguments" in message for message in refused), refused


def seconds(text: str) -> int:
    """An nginx time (`1h`, `3600s`, `3600`) in seconds."""
    match = re.fullmatch(r"(\d+)([smhd]?)", text.strip())
    assert match is not None, text
    return int(match[1]) * {"": 1, "s": 1, "m": 60, "h": HOUR, "d": 24 * HOUR}[match[2]]


def test_nginx_passes_websockets_and_keeps_them_open_an_hour() -> None:
    conf = (DEPLOY / "nginx.conf").read_text()
    directives = dict(re.findall(r"^\s*(proxy_\w+(?: \S+)?) (.+);", conf, re.MULTILINE))
    assert directives["proxy_http_version"] == "1.1"
    assert directives["proxy_set_header Upgrade"] == "$http_upgrade"
    assert directives["proxy_set_header Connection"] == '"upgrade"'
    assert seconds(directives["proxy_read_timeout"]) >= HOUR


def manifests() -> list[dict[str, Any]]:
    return [doc for path in sorted((DEPLOY / "k8s").glob("*.yaml")) for doc in documents(path)]


def test_the_ingress_keeps_websockets_open_an_hour_and_reaches_the_servers() -> None:
    docs = manifests()
    (ingress,) = [doc for doc in docs if doc.get("kind") == "Ingress"]
    annotations = ingress["metadata"]["annotations"]
    for timeout in ("proxy-read-timeout", "proxy-send-timeout"):
        assert int(annotations[f"nginx.ingress.kubernetes.io/{timeout}"]) >= HOUR
    services = {doc["metadata"]["name"]: doc for doc in docs if doc.get("kind") == "Service"}
    servers = [doc for doc in docs if doc.get("kind") == "Deployment" and serves(doc)]
    assert servers
    for rule in ingress["spec"]["rules"]:
        for path in rule["http"]["paths"]:
            backend = path["backend"]["service"]
            service = services[backend["name"]]
            (port,) = [p for p in service["spec"]["ports"] if p["name"] == backend["port"]["name"]]
            for server in servers:
                labels = server["spec"]["template"]["metadata"]["labels"]
                assert service["spec"]["selector"].items() <= labels.items()
                (container,) = pod_spec(server)["containers"]
                assert port["targetPort"] in {p["name"] for p in container["ports"]}


def serves(doc: dict[str, Any]) -> bool:
    return any(c.get("args", [None])[0] == "serve" for c in pod_spec(doc)["containers"])


def test_every_server_is_probed_on_healthz_at_its_port() -> None:
    for doc in manifests():
        if doc.get("kind") != "Deployment" or not serves(doc):
            continue
        for container in pod_spec(doc)["containers"]:
            port = int(option(tuple(container["args"]), "--port") or DEFAULT_PORT)
            ports = {p["name"]: p["containerPort"] for p in container["ports"]}
            for probe in ("readinessProbe", "livenessProbe"):
                check = container[probe]["httpGet"]
                assert check["path"] == "/healthz", (doc["metadata"]["name"], probe)
                assert ports.get(check["port"], check["port"]) == port
    for name in ("compose.yaml", "compose-cluster.yaml"):
        (compose,) = documents(DEPLOY / name)
        for run in runs(DEPLOY / name):
            if run.argv[0] == "serve":
                service = compose["services"][run.where.partition(": ")[2]]
                at = option(run.argv, "--port") or DEFAULT_PORT
                assert f":{at}/healthz" in " ".join(service["healthcheck"]["test"])


def test_the_compose_cluster_is_made_once_of_every_node_and_the_servers_use_it() -> None:
    (compose,) = documents(DEPLOY / "compose-cluster.yaml")
    services = compose["services"]
    nodes = {
        name: service
        for name, service in services.items()
        if service.get("command", [None])[0] == "redis-server"
    }
    assert len(nodes) == 6
    shared = set.intersection(*(set(n["networks"]["default"]["aliases"]) for n in nodes.values()))
    script = services["redis-cluster"]["command"][-1]
    create = re.search(r"redis-cli --cluster create ((?:[^\n\\]|\\\n)*)", script)
    assert create is not None
    words = create.group(1).replace("\\\n", " ").split()
    assert sorted(w for w in words if not w.startswith("-") and ":" in w) == sorted(
        f"{n['networks']['default']['ipv4_address']}:6379" for n in nodes.values()
    )
    assert words[words.index("--cluster-replicas") + 1] == "1"
    for name, node in nodes.items():
        assert node["command"][-2:] == ["--cluster-announce-hostname", name]
        assert "redis-cli" in node["healthcheck"]["test"]
        assert services["redis-cluster"]["depends_on"][name] == {"condition": "service_healthy"}
    for run in runs(DEPLOY / "compose-cluster.yaml"):
        assert urlsplit(option(run.argv, "--redis-url")).hostname in shared
        depends = services[run.where.partition(": ")[2]]["depends_on"]
        assert depends["redis-cluster"] == {"condition": "service_completed_successfully"}
    conf = (DEPLOY / "redis-cluster.conf").read_text()
    assert re.search(r"^cluster-enabled yes$", conf, re.MULTILINE)
    assert re.search(r"^cluster-preferred-endpoint-type hostname$", conf, re.MULTILINE)


def test_the_kubernetes_servers_use_the_charts_cluster_with_its_password() -> None:
    values = documents(DEPLOY / "k8s" / "redis-cluster-values.yaml")[0]
    assert values["cluster"] == {"nodes": 6, "replicas": 1}
    release = re.search(
        r"helm install (\S+) \S+/redis-cluster", (DEPLOY / "k8s/README.md").read_text()
    )
    assert release is not None
    for doc in manifests():
        if doc.get("kind") != "Deployment":
            continue
        for container in pod_spec(doc)["containers"]:
            url = urlsplit(option(tuple(container["args"]), "--redis-url"))
            # The chart names its Service by the release when the release names the chart.
            assert url.hostname == release.group(1) == "redis-cluster"
            (password,) = VARIABLE.findall(url.password or "")
            secrets = {
                v["name"]: v["valueFrom"]["secretKeyRef"]
                for v in container["env"]
                if "valueFrom" in v
            }
            assert secrets[password] == {
                "name": values["existingSecret"],
                "key": values["existingSecretPasswordKey"],
            }
