import os
import re
import signal
import stat
from pathlib import Path

import pytest
import redis

from server.redis_embedded import EmbeddedRedis, EmbeddedRedisError


def _client(url: str) -> redis.Redis:
    return redis.Redis.from_url(url, socket_timeout=5)


def test_start_returns_a_unix_socket_url_that_answers_ping(tmp_path: Path) -> None:
    with EmbeddedRedis(tmp_path) as server, _client(server.url) as client:
        assert server.url == f"unix://{tmp_path}/redis.sock"
        assert client.ping() is True
        info = client.info("server")
        assert info["redis_version"].startswith("6.2")
        assert info["tcp_port"] == 0


def test_the_store_is_append_only_and_private(tmp_path: Path) -> None:
    with EmbeddedRedis(tmp_path) as server, _client(server.url) as client:
        config = client.config_get("*")
        assert config["appendonly"] == "yes"
        assert config["appendfsync"] == "everysec"
        assert config["save"] == ""
        assert stat.S_IMODE(os.stat(tmp_path / "redis.sock").st_mode) == 0o700
        assert (tmp_path / "redis.log").read_text().strip()


def test_data_survives_a_stop_and_a_restart_on_the_same_folder(tmp_path: Path) -> None:
    with EmbeddedRedis(tmp_path) as server, _client(server.url) as client:
        client.set("game:g1", "d1-d7/g7")
        client.rpush("events", "a", "b", "c")
    assert not (tmp_path / "redis.sock").exists()
    assert b"d1-d7/g7" in (tmp_path / "appendonly.aof").read_bytes()
    with EmbeddedRedis(tmp_path) as server, _client(server.url) as client:
        assert client.get("game:g1") == b"d1-d7/g7"
        assert client.lrange("events", 0, -1) == [b"a", b"b", b"c"]


def test_a_missing_data_folder_is_created(tmp_path: Path) -> None:
    data = tmp_path / "not" / "yet"
    with EmbeddedRedis(data) as server, _client(server.url) as client:
        assert client.ping() is True
    assert (data / "appendonly.aof").is_file()


def test_a_folder_name_with_spaces_works(tmp_path: Path) -> None:
    data = tmp_path / "my arena data"
    with EmbeddedRedis(data) as server, _client(server.url) as client:
        client.set("k", "v")
        assert client.get("k") == b"v"


def test_the_stale_socket_of_a_crashed_server_is_replaced(tmp_path: Path) -> None:
    crashed = EmbeddedRedis(tmp_path)
    crashed.start()
    pid = crashed.pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    crashed.stop()
    assert (tmp_path / "redis.sock").is_socket()
    with EmbeddedRedis(tmp_path) as server, _client(server.url) as client:
        assert client.ping() is True


def test_a_second_server_on_a_folder_in_use_is_refused(tmp_path: Path) -> None:
    with EmbeddedRedis(tmp_path) as first, _client(first.url) as client:
        with pytest.raises(EmbeddedRedisError, match=r"already serving .* \(two servers"):
            EmbeddedRedis(tmp_path).start()
        assert client.ping() is True


def test_a_bad_option_fails_with_the_exit_code_and_the_servers_complaint(tmp_path: Path) -> None:
    server = EmbeddedRedis(tmp_path, options={"no-such-option": "1"})
    with pytest.raises(EmbeddedRedisError) as raised:
        server.start()
    message = str(raised.value)
    assert "exited with code 1" in message
    assert "no-such-option" in message
    assert "Bad directive" in message
    assert server.pid is None


def test_a_corrupt_append_only_file_fails_with_the_servers_complaint(tmp_path: Path) -> None:
    (tmp_path / "appendonly.aof").write_text("not an append-only file\n")
    with pytest.raises(EmbeddedRedisError, match=r"(?s)exited with code 1.*Bad file format"):
        EmbeddedRedis(tmp_path).start()


def test_only_this_runs_log_is_quoted(tmp_path: Path) -> None:
    (tmp_path / "redis.log").write_text("an old run said something alarming\n")
    with pytest.raises(EmbeddedRedisError) as raised:
        EmbeddedRedis(tmp_path, options={"no-such-option": "1"}).start()
    assert "alarming" not in str(raised.value)


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write to any folder")
def test_an_unwritable_folder_is_named_in_the_error(tmp_path: Path) -> None:
    tmp_path.chmod(0o500)
    try:
        with pytest.raises(
            EmbeddedRedisError, match=re.escape(str(tmp_path)) + ".*[Pp]ermission denied"
        ):
            EmbeddedRedis(tmp_path).start()
    finally:
        tmp_path.chmod(0o700)


def test_a_log_that_cannot_be_written_is_named_in_the_error(tmp_path: Path) -> None:
    (tmp_path / "redis.log").mkdir()
    with pytest.raises(
        EmbeddedRedisError, match=re.escape(f"cannot write the redis log {tmp_path}/redis.log")
    ):
        EmbeddedRedis(tmp_path).start()


def test_a_data_folder_that_is_a_file_is_named_in_the_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    with pytest.raises(EmbeddedRedisError, match=r"cannot use .*/file/data as the redis data"):
        EmbeddedRedis(tmp_path / "file" / "data").start()


def test_a_socket_path_too_long_for_unix_sockets_is_refused(tmp_path: Path) -> None:
    data = tmp_path / ("d" * 100)
    with pytest.raises(
        EmbeddedRedisError,
        match=re.escape(f"socket path {data}/redis.sock is ") + "1[0-9]{2} bytes",
    ):
        EmbeddedRedis(data).start()
    assert not data.exists()


def test_a_server_that_never_answers_is_stopped_after_the_timeout(tmp_path: Path) -> None:
    silent = tmp_path / "silent-redis-server"
    silent.write_text("#!/bin/sh\necho starting up forever\nexec sleep 60\n")
    silent.chmod(0o755)
    server = EmbeddedRedis(tmp_path / "data", binary=silent, startup_timeout=0.3)
    with pytest.raises(EmbeddedRedisError) as raised:
        server.start()
    message = str(raised.value)
    assert "did not answer PING" in message
    assert "within 0.3 s" in message
    assert f"exit code -{signal.SIGTERM}" in message
    assert "starting up forever" in message


def test_stop_is_harmless_when_not_started_or_already_stopped(tmp_path: Path) -> None:
    server = EmbeddedRedis(tmp_path)
    server.stop()
    server.start()
    server.stop()
    server.stop()
    assert server.pid is None
    assert not (tmp_path / "redis.sock").exists()
