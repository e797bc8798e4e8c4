#!/usr/bin/env python3
"""Users with an authenticator confirmed, on Gatehouse or the reference better-auth, for
bench/run-two-factor.sh. Speaks the twoFactor plugin's protocol over HTTP only (sign-up,
enable, verify-totp with a code computed here from the served URI).

  two_factor_setup.py cookie URL ORIGIN EMAIL
      prints the Cookie header of a signed-in session of a user with the second factor on
  two_factor_setup.py sign-ins URL ORIGIN PREFIX N OUT.json
      N users with the second factor on, then one password sign-in and its verify-totp each
      (the code of the current step, a new user each time: each code is accepted once);
      writes every verify-totp's latency (ms) and status
"""
import base64, hashlib, hmac, json, struct, sys, time, urllib.parse, urllib.request
from http.cookies import SimpleCookie

PASSWORD = "Bench-Password-123"


class Browser:
    def __init__(self, url, origin):
        self.url, self.origin, self.jar = url.rstrip("/"), origin, {}

    def post(self, path, body):
        request = urllib.request.Request(
            f"{self.url}/api/auth{path}", data=json.dumps(body).encode(), method="POST",
            headers={"content-type": "application/json", "origin": self.origin,
                     "cookie": self.cookie()})
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                status, headers, text = response.status, response.headers, response.read()
        except urllib.error.HTTPError as error:
            status, headers, text = error.code, error.headers, error.read()
        for raw in headers.get_all("set-cookie") or []:
            cookie = SimpleCookie()
            cookie.load(raw)
            for name, morsel in cookie.items():
                if morsel["max-age"] == "0":
                    self.jar.pop(name, None)
                else:
                    self.jar[name] = morsel.value
        return status, json.loads(text) if text else None

    def cookie(self):
        return "; ".join(f"{k}={v}" for k, v in self.jar.items())


def totp(uri, offset=0):
    query = urllib.parse.parse_qs(urllib.parse.urlparse(uri).query)
    secret = query["secret"][0]
    key = base64.b32decode(secret + "=" * (-len(secret) % 8))
    counter = int(time.time()) // 30 + offset
    mac = hmac.new(key, struct.pack(">Q", counter), hashlib.sha1).digest()
    offset_byte = mac[-1] & 0x0F
    number = struct.unpack(">I", mac[offset_byte:offset_byte + 4])[0] & 0x7FFFFFFF
    return f"{number % 1_000_000:06d}"


def must(result, what):
    status, body = result
    if status != 200:
        sys.exit(f"{what}: {status} {body}")
    return body


def enrolled(url, origin, email):
    """A signed-in browser of a new user whose authenticator is confirmed, and its URI."""
    b = Browser(url, origin)
    must(b.post("/sign-up/email", {"email": email, "password": PASSWORD, "name": "Bench"}), "sign-up")
    uri = must(b.post("/two-factor/enable", {"password": PASSWORD}), "enable")["totpURI"]
    must(b.post("/two-factor/verify-totp", {"code": totp(uri)}), "verify-totp (set-up)")
    return b, uri


def main():
    mode, url, origin = sys.argv[1], sys.argv[2], sys.argv[3]
    if mode == "cookie":
        b, _ = enrolled(url, origin, sys.argv[4])
        print(b.cookie())
        return
    prefix, n, out = sys.argv[4], int(sys.argv[5]), sys.argv[6]
    users = [(f"{prefix}-{i}@example.com", enrolled(url, origin, f"{prefix}-{i}@example.com")[1])
             for i in range(n)]
    results = []
    for email, uri in users:
        b = Browser(url, origin)
        body = must(b.post("/sign-in/email", {"email": email, "password": PASSWORD}), "sign-in")
        if not body.get("twoFactorRedirect"):
            sys.exit(f"sign-in of {email} was not asked for a second factor: {body}")
        # The next step's code: the set-up used the current one, which is not accepted twice.
        code = totp(uri, 1)
        start = time.perf_counter()
        status, answer = b.post("/two-factor/verify-totp", {"code": code})
        results.append({"ms": (time.perf_counter() - start) * 1000, "status": status,
                        "signed_in": bool(answer and answer.get("token"))})
    json.dump(results, open(out, "w"))


if __name__ == "__main__":
    main()
