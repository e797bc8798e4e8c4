-- The key pairs that sign users' tokens (better-auth's jwt plugin, its `jwks` table). A key signs
-- until expires_at; the key set publishes it until expires_at plus the grace period, so tokens
-- it signed keep verifying after the next key takes over.
CREATE TABLE signing_keys (
    -- The tokens' `kid`.
    id TEXT PRIMARY KEY,
    -- The public key as a JWK (JSON text), as /jwks publishes it.
    public_key TEXT NOT NULL,
    -- PKCS#8 DER, base64, encrypted with a key derived from the auth secret
    -- (`$gh$<secret version>$…`): a rotation of the secret leaves older rows readable.
    private_key TEXT NOT NULL,
    alg TEXT NOT NULL,
    crv TEXT,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    -- One key per generation: replicas that rotate at the same moment insert the same
    -- generation, one wins, and every replica signs with the winner.
    generation BIGINT NOT NULL UNIQUE
);
