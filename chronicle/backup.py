"""``chronicle backup FILE`` and ``chronicle restore FILE``: every game as one JSON line.

A line is ``{"format": "chronicle-backup/1", "id", "meta", "export"}``:

- ``export`` is the game's export document (``GET /games/{id}/export`` as the operator sees it:
  the whole log with the seed, the head hash, the undo trail and the chat, hidden lines with
  their text and who hid them);
- ``meta`` is the game's stored meta hash: status, configuration, the hashes of its tokens
  (so that players keep their tokens and games keep their ids), times.

After the games come the people's records (accounts, the Web Push keys, the ratings), a line
per Redis key (``chronicle/backup_people.py``); restore writes each where no such key exists.

A backup holds every game's seed and token hashes: keep it as secret as the Redis it came from
(the file is created readable by its owner only).

**Restore** reads the file twice.  The first pass checks every line and writes nothing: the
log goes through the import validation of ``POST /games/import`` (every command replayed
through the rules with the seed, the hash chain, the head; the undo trail, its own chain and
the chat lines, as ``service/imports.py`` checks them), and the meta must agree with what the
replay gives (version, head, status, to act, result, seed and its commitment, options; a legacy
import's unsigned undo records only on an imported game whose ``verified`` says so).  A
line that fails stops the restore before anything is written, naming its line and its game.  A
game that already exists with the same head is skipped; with another head, the restore stops.
The second pass writes each game with the same conditional append as any new game, its undo
trail, its chat (``service.chat.restore_into``: ids and hidden marks kept), its place in the
index and a snapshot, and enqueues its follow-up jobs (bot turns, scoring) so that restored
games go on.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

FORMAT = "chronicle-backup/1"


class RestoreRefused(Exception):
    pass


def add_commands(sub: Any) -> None:
    """The ``backup`` and ``restore`` subcommands of ``chronicle``."""
    where = {
        "help": "the data folder of `chronicle serve`, whose embedded Redis is used when "
        "REDIS_URL is unset (default: $CHRONICLE_DATA_DIR or ./var)",
        "default": os.environ.get("CHRONICLE_DATA_DIR") or "var",
    }
    backup = sub.add_parser(
        "backup", help="write every game (log, seed, meta) to FILE as JSON lines"
    )
    backup.add_argument("file", type=Path, help="the backup file to write (replaced atomically)")
    backup.add_argument("--data-dir", **where)
    backup.set_defaults(run=lambda args: run_backup(args.file, Path(args.data_dir)))
    restore = sub.add_parser(
        "restore", help="check every game of a backup FILE through the rules, then write them"
    )
    restore.add_argument("file", type=Path, help="a file written by `chronicle backup`")
    restore.add_argument("--data-dir", **where)
    restore.add_argument(
        "--check", action="store_true", help="only check the backup; write nothing"
    )
    restore.set_defaults(
        run=lambda args: run_restore(args.file, Path(args.data_dir), check_only=args.check)
    )


def redis_url(data_dir: Path) -> str:
    """``REDIS_URL``, else the socket of the embedded Redis that `chronicle serve` runs."""
    url = os.environ.get("REDIS_URL")
    if url:
        return url
    sock = (data_dir / "redis" / "redis.sock").resolve()
    if sock.exists():
        return f"unix://{sock}"
    raise SystemExit(
        f"chronicle: REDIS_URL is not set and no embedded Redis runs under {data_dir} "
        "(start `chronicle serve --data-dir DIR`, or set REDIS_URL)"
    )


def _chronicle(data_dir: Path) -> Any:
    from service.app import build_chronicle
    from service.config import Settings

    os.environ["REDIS_URL"] = redis_url(data_dir)
    return build_chronicle(Settings.from_env())


# ---- backup ---------------------------------------------------------------------------------
def lines(ch: Any) -> Iterator[dict[str, Any]]:
    """One backup line per game of the index, newest first."""
    from projections.views import ADMIN, Caller

    admin = Caller(ADMIN)
    start, chunk = 0, 500
    while ids := ch.store.list_ids(start, chunk):
        start += chunk
        for gid in ids:
            for _ in range(10):  # a move between the two reads: read both again
                if ch.store.meta(gid) is None:
                    break
                export = ch.export(gid, admin)
                meta = ch.store.meta(gid)
                if meta is not None and meta.head == export["head_hash"]:
                    yield {"format": FORMAT, "id": gid, "meta": stored(meta), "export": export}
                    break
            else:
                raise SystemExit(f"chronicle: game {gid} kept changing during the backup")


def stored(meta: Any) -> dict[str, str]:
    """A meta as the store keeps it: flat strings (``service/meta.py``), version and head too."""
    from service import meta as meta_codec

    return {**meta_codec.encode(meta), "version": str(meta.version), "head": meta.head}


def run_backup(path: Path, data_dir: Path) -> int:
    from chronicle import backup_people

    ch = _chronicle(data_dir)
    tmp = path.with_name(f".{path.name}.partial")
    games = events = records = 0
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        for line in lines(ch):
            out.write(json.dumps(line, separators=(",", ":")) + "\n")
            games += 1
            events += len(line["export"]["events"])
        if ch.accounts is not None:
            for line in backup_people.lines(ch.accounts.r):
                out.write(json.dumps(line, separators=(",", ":")) + "\n")
                records += 1
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, path)
    print(
        f"chronicle: backed up {games} games ({events} events) and {records} records of "
        f"accounts and ratings to {path}"
    )
    return 0


# ---- restore --------------------------------------------------------------------------------
Checked = tuple[Any, list[Any], Any, Any, list[dict[str, Any]], list[dict[str, Any]]]


def check(line: dict[str, Any], now: int) -> Checked:
    """The import validation (the log, the undo trail, the chat: as ``import_log`` checks
    them, ``now`` the time nothing may be after), and the meta against the replay; returns
    (game, records, match, meta, undone, chat) or raises ``RestoreRefused``."""
    from domain import engine
    from domain.errors import Refused
    from service import imports
    from service import meta as meta_codec
    from service.commands import setup_length, verify_export

    if line.get("format") != FORMAT:
        raise RestoreRefused(f"not a {FORMAT} line")
    stored_meta, export = line.get("meta"), line.get("export")
    if not isinstance(stored_meta, dict) or not isinstance(export, dict):
        raise RestoreRefused("meta and export must be objects")
    try:
        meta = meta_codec.decode(stored_meta)
    except (KeyError, TypeError, ValueError) as exc:
        raise RestoreRefused(f"malformed meta ({exc})") from exc
    try:
        game, records, match = verify_export(export, now)
        seed, seats = export["seed"], len(match.config.players)
        undone = imports.check_undone(
            export.get("undone") or [], records, seed, seats, setup_length(records), now,
            unsigned=meta.unsigned_undos,
        )  # fmt: skip
        chat = imports.check_chat(export.get("chat") or [], seats, now)
    except Refused as exc:
        raise RestoreRefused(exc.message) from exc
    except (KeyError, TypeError, IndexError) as exc:
        raise RestoreRefused(f"malformed export ({exc})") from exc
    follow_ups = meta_codec.follow_ups_of(engine.follow_ups(game, "", match))
    expected = {
        "game": (meta.game, game.id),
        "seed": (meta.seed, seed),
        "seed_commitment": (meta.seed_commitment, hashlib.sha256(seed.encode()).hexdigest()),
        "version": (meta.version, match.version),
        "head": (meta.head, records[-1].hash),
        "status": (meta.progress.status, match.status(game)),
        "to_act": (tuple(meta.progress.to_act), tuple(match.to_act(game))),
        "follow_ups": (tuple(meta.progress.follow_ups), follow_ups),
        "result": (meta.progress.result, match.result),
        "options": (dict(meta.options), dict(match.config.options)),
        "tokens": (len(meta.tokens), len(match.config.players)),
    }
    for field, (kept, replayed) in expected.items():
        if kept != replayed:
            raise RestoreRefused(f"meta field {field} does not match the log")
    if meta.unsigned_undos and (meta.imported_from is None or "undo_trail" in meta.verified):
        # only a legacy import has unsigned undo records, and its audit never says verified
        raise RestoreRefused("meta field unsigned_undos does not match the import")
    return game, records, match, meta, undone, chat


def _read(path: Path) -> Iterator[tuple[int, str, dict[str, Any]]]:
    with path.open(encoding="utf-8") as f:
        for n, text in enumerate(f, 1):
            if not text.strip():
                continue
            try:
                line = json.loads(text)
            except ValueError:
                raise RestoreRefused(f"line {n}: not JSON") from None
            if not isinstance(line, dict):
                raise RestoreRefused(f"line {n}: not a JSON object")
            yield n, str(line.get("id", "?")), line


def run_restore(path: Path, data_dir: Path, check_only: bool = False) -> int:
    from chronicle import backup_people
    from domain import engine
    from projections.fold import snapshot_blob
    from service import chat, listing
    from service.store import Conflict

    ch = _chronicle(data_dir)
    now = ch.clock()
    present: set[str] = set()
    total = people = 0
    try:
        for n, gid, line in _read(path):  # pass 1: check everything, write nothing
            if backup_people.is_key_line(line):
                try:
                    backup_people.check(line)
                except backup_people.KeyRefused as exc:
                    raise RestoreRefused(f"line {n}, key {line.get('key')!r}: {exc}") from None
                if ch.accounts is None:
                    raise RestoreRefused(f"line {n}: this store keeps no accounts")
                people += 1
                continue
            try:
                records = check(line, now)[1]
            except RestoreRefused as exc:
                raise RestoreRefused(f"line {n}, game {gid}: {exc}") from None
            existing = ch.store.meta(gid)
            if existing is not None:
                if existing.head != records[-1].hash:
                    raise RestoreRefused(
                        f"line {n}, game {gid}: a different game of that id already exists"
                    )
                present.add(gid)
            total += 1
    except RestoreRefused as exc:
        print(f"chronicle: restore refused: {exc}; nothing was written", file=sys.stderr)
        return 1
    if check_only:
        print(
            f"chronicle: {path}: {total} games checked and {people} records of accounts and "
            "ratings, all sound"
        )
        return 0
    restored = events = written = 0
    for _, gid, line in _read(path):  # pass 2: write
        if backup_people.is_key_line(line):
            written += backup_people.write(ch.accounts_of().r, line)
            continue
        if gid in present:
            continue
        game, records, match, meta, undone, lines = check(line, now)
        snapshot = (match.version, snapshot_blob(game, match, records[-1].hash))
        try:
            ch.store.append(gid, 0, "", records, meta, snapshot=snapshot)
        except Conflict:  # written meanwhile (another restore): checked again below
            now = ch.store.meta(gid)
            if now is None or now.head != records[-1].hash:
                print(f"chronicle: game {gid} appeared during the restore", file=sys.stderr)
                return 1
            continue
        ch.store.add_undone(gid, undone)
        chat.restore_into(ch.store, gid, lines)
        listing.index(ch.store, gid, meta)  # public and token indexes too
        ch.jobs.enqueue(engine.follow_ups(game, gid, match))
        restored += 1
        events += len(records)
    skipped = f"; {len(present)} already present" if present else ""
    kept = f" ({people - written} already present)" if people > written else ""
    print(
        f"chronicle: restored {restored} games ({events} events) and {written} records of "
        f"accounts and ratings{kept} from {path}{skipped}"
    )
    return 0
