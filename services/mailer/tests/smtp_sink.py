"""A real SMTP server process for the mailer's tests (aiosmtpd).

    python smtp_sink.py PORT DIR [--starttls CERT KEY | --implicit-tls CERT KEY] [--auth USER:PASSWORD]
                                 [--delay SECONDS]

Every mail it accepts is written to DIR as <n>.eml, whole, as received. Recipients at
`@reject.test` are refused with 550 (a permanent failure), at `@busy.test` with 451 (a
transient one). With `--starttls` it requires STARTTLS before anything else; with
`--implicit-tls` it speaks TLS from the first byte (SMTPS); with `--auth` it requires that
login (PLAIN or LOGIN) before accepting mail. With `--delay` it takes that long over each mail's
data before writing and accepting it (a slow server: mails are in flight for a while). Prints
`ready` once it listens; stops on SIGTERM.
"""

import asyncio
import itertools
import pathlib
import argparse
import signal
import ssl

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword


class Sink:
    def __init__(self, folder: pathlib.Path, delay: float):
        self.folder = folder
        self.delay = delay
        self.counter = itertools.count(1)

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.endswith("@reject.test"):
            return "550 5.1.1 No such user here"
        if address.endswith("@busy.test"):
            return "451 4.3.0 Mailbox busy, try again later"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        if self.delay:
            await asyncio.sleep(self.delay)
        path = self.folder / f"{next(self.counter):06d}.eml"
        partial = path.with_suffix(".partial")
        partial.write_bytes(envelope.original_content or envelope.content)
        partial.rename(path)  # readers never see half a mail
        return "250 Message accepted for delivery"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("folder", type=pathlib.Path)
    parser.add_argument("--starttls", nargs=2, metavar=("CERT", "KEY"))
    parser.add_argument("--implicit-tls", nargs=2, metavar=("CERT", "KEY"))
    parser.add_argument("--auth", metavar="USER:PASSWORD")
    parser.add_argument("--delay", type=float, default=0.0)
    args = parser.parse_args()
    args.folder.mkdir(parents=True, exist_ok=True)

    def tls(pair):
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(*pair)
        return context

    options = {}
    if args.starttls:
        options.update(tls_context=tls(args.starttls), require_starttls=True)
    if args.auth:
        user, password = args.auth.split(":", 1)

        def authenticator(server, session, envelope, mechanism, auth_data):
            ok = (
                isinstance(auth_data, LoginPassword)
                and auth_data.login.decode() == user
                and auth_data.password.decode() == password
            )
            # handled=False: aiosmtpd answers 535 itself (handled=True would leave the client waiting).
            return AuthResult(success=ok, handled=False)

        options.update(authenticator=authenticator, auth_required=True,
                       auth_require_tls=bool(args.starttls or args.implicit_tls))
    controller = Controller(
        Sink(args.folder, args.delay), hostname="127.0.0.1", port=args.port,
        ssl_context=tls(args.implicit_tls) if args.implicit_tls else None,
        **options,
    )
    controller.start()
    print("ready", flush=True)
    loop = asyncio.new_event_loop()
    stop = asyncio.Event()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    loop.add_signal_handler(signal.SIGINT, stop.set)
    loop.run_until_complete(stop.wait())
    controller.stop()


if __name__ == "__main__":
    main()
