"""Logging in: with a password (failed attempts throttled), a bot's token, as a guest, or by
taking up a session again; or signing up, which makes an account and logs in to it. Each ends in
a `welcome`, after which the connection follows the player's news, games and challenges. A
signed-in person changes their password here too, which ends the account's other sessions, and
deletes their account.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import redis.asyncio as aioredis

from server import identity
from server.games import GameStore
from server.hub import user_channel
from server.lobby import Lobby
from server.protocol import (
    PROTOCOL_VERSION,
    BotLogin,
    ChallengeAdded,
    ErrorCode,
    Event,
    Guest,
    Login,
    Offers,
    Ok,
    Player,
    PlayerKind,
    ProtocolError,
    Request,
    Resume,
    SignUp,
    Welcome,
)
from server.protocol.account import (
    ChangePassword,
    DeleteAccount,
    EndSession,
    ListSessions,
    SessionInfo,
    SessionList,
)
from server.protocol.limits import MAX_OWN_GAMES
from server.throttle import LoginThrottle, SignupThrottle

from .route import Route, on

if TYPE_CHECKING:
    from server.db import Database

__all__ = ["ROUTES", "AccountConnection", "AccountServices"]


@dataclass(frozen=True)
class AccountServices:
    """What logging in uses."""

    redis: aioredis.Redis  # sessions and guests (server.identity)
    throttle: LoginThrottle
    store: GameStore  # the player's games in play; its database keeps accounts and bot tokens
    lobby: Lobby  # challenges waiting for the player
    offers: Offers  # what the welcome says the server offers
    signups: SignupThrottle | None = None  # the sign-ups counted; None: sign-ups are closed


class AccountConnection(Protocol):
    """The connection as logging in sees it."""

    user: Player | None  # set once the player is welcomed
    bot_token: str | None  # digest of the bot token logged in with, if any
    session: str | None  # digest of the session it holds, once welcomed
    log: Any  # the connection's bound logger

    def address(self) -> str: ...

    def reply(self, event: Event) -> None: ...

    def push(self, frame: bytes) -> None: ...

    async def follow(self, name: str) -> None: ...

    async def unfollow(self, name: str) -> None: ...

    async def follow_game(self, game_id: str, version: int, snapshot: bool = False) -> None: ...


async def login(services: AccountServices, connection: AccountConnection, request: Login) -> None:
    throttle, address = services.throttle, connection.address()
    wait = await throttle.wait(request.user, address)
    if wait > 0:
        connection.log.warning("login_throttled", account=request.user, wait=wait)
        raise ProtocolError(
            ErrorCode.RATE_LIMITED,
            f"too many failed logins for {request.user}: try again in {wait} s",
            retry_after=wait,
        )
    account = await identity.authenticate(_database(services), request.user, request.password)
    if account is None:
        await throttle.failed(request.user, address)
        raise ProtocolError(ErrorCode.BAD_CREDENTIALS, "wrong user name or password")
    await throttle.succeeded(request.user, address)
    await _welcome(services, connection, request, account)


async def sign_up(
    services: AccountServices, connection: AccountConnection, request: SignUp
) -> None:
    if connection.user is not None:
        await _refuse_sign_up_after_login(services, connection.user)
    if services.signups is None:
        raise ProtocolError(
            ErrorCode.FORBIDDEN,
            "sign-ups are closed on this server: its operator makes the accounts",
        )
    database, address = _database(services), connection.address()
    wait = await services.signups.take(address)
    if wait > 0:
        connection.log.warning("sign_up_throttled", wait=wait)
        raise ProtocolError(
            ErrorCode.RATE_LIMITED,
            f"too many accounts made from your address: try again in {wait} s",
            retry_after=wait,
        )
    try:
        account = await identity.sign_up(database, request.user, request.password)
    except identity.AccountError as error:
        await services.signups.give_back(address)  # counted are the accounts made
        raise _refusal(error) from None
    await services.throttle.succeeded(account.name, address)  # its owner's address is known
    connection.log.info("signed_up", account=account.name)
    await _welcome(services, connection, request, account)


def _refusal(error: identity.AccountError) -> ProtocolError:
    if isinstance(error, identity.NameTakenError):
        return ProtocolError(ErrorCode.CONFLICT, str(error), field="user")
    field = "password" if isinstance(error, identity.InvalidPasswordError) else "user"
    return ProtocolError(ErrorCode.BAD_FIELD, str(error), field=field)


async def _refuse_sign_up_after_login(services: AccountServices, user: Player) -> None:
    """Refuse a sign-up on a logged-in connection, saying why: a game's players are fixed when
    it starts, so a guest's games stay the guest's."""
    if user.kind is PlayerKind.GUEST:
        games = await services.store.games_of(user.name)
        if games:
            raise ProtocolError(
                ErrorCode.CONFLICT,
                f"you are playing game {games[0]} as {user.name}, and a game keeps the players "
                "it started with: finish or leave it, then sign up from the sign-in screen",
            )
    raise ProtocolError(
        ErrorCode.CONFLICT,
        f"already logged in as {user.name}: sign up from the sign-in screen (a new connection)",
    )


async def bot_login(
    services: AccountServices, connection: AccountConnection, request: BotLogin
) -> None:
    account = await identity.bot_for_token(_database(services), request.token)
    if account is None:
        raise ProtocolError(
            ErrorCode.BAD_CREDENTIALS,
            "unknown bot token: it was not made on this server's database (`arena token "
            "create` uses the database of the data folder it is run in, or --database-url), or "
            "it was revoked",
        )
    connection.bot_token = identity.token_digest(request.token)
    await _welcome(services, connection, request, account)


async def guest(services: AccountServices, connection: AccountConnection, request: Guest) -> None:
    await _welcome(services, connection, request, await identity.new_guest(services.redis))


async def resume(services: AccountServices, connection: AccountConnection, request: Resume) -> None:
    account = await identity.resume_session(
        services.redis, services.store.database, request.session, address=connection.address()
    )
    if account is None:
        raise ProtocolError(ErrorCode.BAD_CREDENTIALS, "unknown or expired session")
    connection.bot_token = await identity.session_origin(services.redis, request.session)
    await _welcome(services, connection, request, account, session=request.session)


async def _welcome(
    services: AccountServices,
    connection: AccountConnection,
    request: Request,
    account: identity.Account,
    session: str | None = None,
) -> None:
    player = Player(account.name, PlayerKind(account.kind), account.rating)
    if session is None:
        session = await identity.open_session(
            services.redis,
            services.store.database,
            account,
            origin=connection.bot_token,
            address=connection.address(),
        )
    connection.user = player
    connection.session = identity.session_digest(session)
    connection.log = connection.log.bind(user=player.name)
    await connection.follow(user_channel(player.name))
    if connection.bot_token is not None and not await identity.token_known(
        _database(services), connection.bot_token
    ):
        # Revoked after the token was checked and before the follow, which missed the news.
        connection.user = None
        await connection.unfollow(user_channel(player.name))
        raise ProtocolError(ErrorCode.BAD_CREDENTIALS, "unknown bot token: it was revoked")
    games = await services.store.games_of(player.name)
    connection.reply(
        Welcome(
            PROTOCOL_VERSION,
            session,
            player,
            tuple(games[:MAX_OWN_GAMES]),
            services.offers,
            id=request.id,
        )
    )
    for game_id in games:
        await connection.follow_game(game_id, 0, snapshot=True)
    for challenge in await services.lobby.challenges_for(player.name):
        connection.push(ChallengeAdded(challenge).to_wire())
    connection.log.info("logged_in", kind=str(player.kind))


async def change_password(
    services: AccountServices, connection: AccountConnection, request: ChangePassword
) -> None:
    name, address = _person(connection), connection.address()
    await _throttled(services, connection, name, "change_password_throttled")
    try:
        changed = await identity.change_password(
            services.redis,
            _database(services),
            name,
            request.old,
            request.new,
            keep=connection.session,
        )
    except identity.InvalidPasswordError as error:
        raise ProtocolError(ErrorCode.BAD_FIELD, str(error), field="new") from None
    if not changed:
        await services.throttle.failed(name, address)
        raise ProtocolError(ErrorCode.BAD_CREDENTIALS, "wrong password: the old one is needed")
    await services.throttle.succeeded(name, address)
    connection.log.info("password_changed")
    connection.reply(Ok(id=request.id))


async def list_sessions(
    services: AccountServices, connection: AccountConnection, request: ListSessions
) -> None:
    name = _person(connection, "sessions to list")
    await _reply_sessions(services, connection, name, request.id)


async def end_session(
    services: AccountServices, connection: AccountConnection, request: EndSession
) -> None:
    name, db = _person(connection, "sessions to end"), _database(services)
    this = None if connection.session is None else identity.session_id(connection.session)
    if request.session_id.lower() == this:
        # A log-out: the reply goes before the news of the session's end closes the connection.
        await _reply_sessions(services, connection, name, request.id, leaving=this)
    try:
        await identity.end_session(services.redis, db, name, request.session_id)
    except identity.UnknownSessionError as error:
        raise ProtocolError(ErrorCode.NOT_FOUND, str(error), field="session_id") from None
    connection.log.info("session_ended_by_owner", session_id=request.session_id)
    if request.session_id.lower() != this:
        await _reply_sessions(services, connection, name, request.id)


async def _reply_sessions(
    services: AccountServices,
    connection: AccountConnection,
    name: str,
    request_id: int | None,
    leaving: str | None = None,
) -> None:
    """Reply the account's live sessions, but for `leaving`, the one being ended."""
    sessions = await identity.list_sessions(services.redis, _database(services), name)
    this = None if connection.session is None else identity.session_id(connection.session)
    listed = tuple(
        SessionInfo(
            session.id,
            int(session.started.timestamp() * 1000),
            session.address,
            current=session.id == this,
        )
        for session in sessions
        if session.id != leaving
    )
    connection.reply(SessionList(listed, id=request_id))


async def delete_account(
    services: AccountServices, connection: AccountConnection, request: DeleteAccount
) -> None:
    name, address, db = (
        _person(connection, "an account to delete"),
        connection.address(),
        _database(services),
    )
    games = await services.store.games_of(name)
    if games:
        raise ProtocolError(
            ErrorCode.CONFLICT,
            f"you are playing game {games[0]}: finish or resign your games first",
        )
    await _throttled(services, connection, name, "delete_account_throttled")
    # The reply goes before the news of the sessions' end, which closes this connection too.
    if not await identity.delete_account(
        services.redis,
        db,
        name,
        request.password,
        closed=lambda: connection.reply(Ok(id=request.id)),
    ):
        await services.throttle.failed(name, address)
        raise ProtocolError(ErrorCode.BAD_CREDENTIALS, "wrong password: your password is needed")
    # A challenge to or from it would start a game against an account that cannot play.
    challenges = await services.lobby.close_challenges_of(name, f"{name} deleted their account")
    connection.log.info("account_deleted", challenges_closed=challenges)


async def _throttled(
    services: AccountServices, connection: AccountConnection, name: str, event: str
) -> None:
    """Refuse the request while the password is throttled: it is a guess like a login's,
    counted by the same throttle."""
    wait = await services.throttle.wait(name, connection.address())
    if wait > 0:
        connection.log.warning(event, wait=wait)
        raise ProtocolError(
            ErrorCode.RATE_LIMITED,
            f"too many wrong passwords for {name}: try again in {wait} s",
            retry_after=wait,
        )


def _person(connection: AccountConnection, what: str = "a password") -> str:
    """The name of the signed-in person (a human account) the request is from."""
    user = connection.user
    if user is None or user.kind is not PlayerKind.HUMAN:
        kind = "nobody" if user is None else f"a {user.kind}"
        raise ProtocolError(
            ErrorCode.FORBIDDEN, f"only a signed-in person's account has {what}, not {kind}"
        )
    return user.name


def _database(services: AccountServices) -> Database:
    """The database of accounts; a server started without one (some tests) knows only guests."""
    if services.store.database is None:
        raise ProtocolError(
            ErrorCode.BAD_CREDENTIALS, "this server keeps no accounts: log in as a guest"
        )
    return services.store.database


ROUTES: tuple[Route[AccountServices, AccountConnection], ...] = (
    on(Login, login),
    on(SignUp, sign_up),
    on(BotLogin, bot_login),
    on(Guest, guest),
    on(Resume, resume),
    on(ChangePassword, change_password),
    on(ListSessions, list_sessions),
    on(EndSession, end_session),
    on(DeleteAccount, delete_account),
)
