//! Real identity and session services on loopback ports, users signed up and signed in
//! through them, and the organization rules over a test database.

use std::time::Duration;

use gatehouse_kit::config::Env;
use gatehouse_kit::db::Backend;
use gatehouse_kit::service::{Context, Part};
use gatehouse_kit::service_auth::ServiceToken;
use gatehouse_kit::testing::TestDb;
use gatehouse_organization::config::Rules;
use gatehouse_organization::member::Members;
use gatehouse_organization::organization::{Caller, Organizations};
use gatehouse_organization::peers::Peers;
use gatehouse_organization::team::Teams;
use gatehouse_proto::identity::v1::SignUpEmailRequest;
use gatehouse_proto::identity::v1::email_password_service_client::EmailPasswordServiceClient;
use gatehouse_proto::identity::v1::user_service_client::UserServiceClient;
use gatehouse_proto::session::v1 as session_pb;
use gatehouse_proto::session::v1::session_service_client::SessionServiceClient;
use tokio_util::sync::CancellationToken;

const TOKEN: &str = "organization-tests-service-token-0123456789";

fn token() -> ServiceToken {
    ServiceToken::new(TOKEN).unwrap()
}

/// Identity and session services, stopped when dropped.
pub struct Services {
    identity_url: String,
    session_url: String,
    shutdown: CancellationToken,
    identity_db: TestDb,
    _session_db: TestDb,
}

impl Drop for Services {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

async fn run(part: &'static dyn Part, env: Env, shutdown: &CancellationToken) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(part.run(Context::from_env(env).unwrap(), listener, shutdown.clone()));
    url
}

impl Services {
    pub async fn start() -> Self {
        let shutdown = CancellationToken::new();
        let identity_db = TestDb::new(Backend::Sqlite).await;
        let identity_url = run(
            &gatehouse_identity::SERVICE,
            Env::from_pairs([
                ("IDENTITY_DATABASE_URL", identity_db.url.as_str()),
                ("HASH_POOL_SIZE", "2"),
                ("SERVICE_TOKEN", TOKEN),
            ]),
            &shutdown,
        )
        .await;
        let session_db = TestDb::new(Backend::Sqlite).await;
        let session_url = run(
            &gatehouse_session::SERVICE,
            Env::from_pairs([
                ("SESSION_DATABASE_URL", session_db.url.as_str()),
                ("IDENTITY_URL", identity_url.as_str()),
                ("SERVICE_TOKEN", TOKEN),
            ]),
            &shutdown,
        )
        .await;
        Self {
            identity_url,
            session_url,
            shutdown,
            identity_db,
            _session_db: session_db,
        }
    }

    fn sessions(&self) -> SessionServiceClient<gatehouse_kit::client::ServiceChannel> {
        SessionServiceClient::new(
            gatehouse_kit::client::lazy_channel(&self.session_url, &token()).unwrap(),
        )
    }

    /// The organization rules over a fresh database of `backend`.
    pub async fn organizations(&self, backend: Backend, rules: Rules) -> (Organizations, TestDb) {
        let (organizations, _, database) = self.capabilities(backend, rules).await;
        (organizations, database)
    }

    /// The organization and member rules over one fresh database of `backend`.
    pub async fn capabilities(
        &self,
        backend: Backend,
        rules: Rules,
    ) -> (Organizations, Members, TestDb) {
        let database = TestDb::new(backend).await;
        let db = database.connect(&gatehouse_organization::MIGRATIONS).await;
        let channel = |url: &str| gatehouse_kit::client::lazy_channel(url, &token()).unwrap();
        let peers = Peers {
            users: UserServiceClient::new(channel(&self.identity_url)),
            sessions: SessionServiceClient::new(channel(&self.session_url)),
        };
        let organizations = Organizations::new(db.clone(), rules.clone(), peers.clone());
        let members = Members::new(db, rules, peers);
        (organizations, members, database)
    }

    /// The team rules over the database `organizations` uses.
    pub fn teams(&self, organizations: &Organizations, rules: Rules) -> Teams {
        Teams::new(organizations.db().clone(), rules, self.peers())
    }

    /// The identity and session clients the rules use.
    pub fn peers(&self) -> Peers {
        let channel = |url: &str| gatehouse_kit::client::lazy_channel(url, &token()).unwrap();
        Peers {
            users: UserServiceClient::new(channel(&self.identity_url)),
            sessions: SessionServiceClient::new(channel(&self.session_url)),
        }
    }

    /// The same clients, except that identity is unreachable (nothing listens on its
    /// address): any call to it fails.
    pub async fn peers_without_identity(&self) -> Peers {
        // A port that was free a moment ago, and nothing listens on now.
        let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", closed.local_addr().unwrap());
        drop(closed);
        Peers {
            users: UserServiceClient::new(
                gatehouse_kit::client::lazy_channel(&url, &token()).unwrap(),
            ),
            ..self.peers()
        }
    }

    /// The identity service's database (its outbox: the events it published).
    pub async fn identity_db(&self) -> gatehouse_kit::db::Db {
        self.identity_db
            .connect(&gatehouse_identity::MIGRATIONS)
            .await
    }

    /// A channel to identity, for its other capabilities' clients.
    pub fn identity(&self) -> gatehouse_kit::client::ServiceChannel {
        gatehouse_kit::client::lazy_channel(&self.identity_url, &token()).unwrap()
    }

    /// A new user with a session: the caller of the rules' calls.
    pub async fn signed_in(&self, name: &str) -> Caller {
        self.signed_in_with_email(name).await.0
    }

    /// A new user with a session, and their email.
    pub async fn signed_in_with_email(&self, name: &str) -> (Caller, String) {
        let mut identity = EmailPasswordServiceClient::new(
            gatehouse_kit::client::lazy_channel(&self.identity_url, &token()).unwrap(),
        );
        let request = SignUpEmailRequest {
            name: name.into(),
            email: format!(
                "{}@example.com",
                gatehouse_kit::ids::random_alphanumeric(12).to_lowercase()
            ),
            password: "Correct-Horse-9".into(),
            ..Default::default()
        };
        let mut user_id = None;
        // The services may still be starting: retry briefly.
        for _ in 0..50 {
            if let Ok(response) = identity.sign_up_email(request.clone()).await {
                user_id = Some(response.into_inner().user.unwrap().id);
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let user_id = user_id.expect("identity service did not answer");
        let mut session = None;
        for _ in 0..50 {
            let created = self
                .sessions()
                .create_session(session_pb::CreateSessionRequest {
                    user_id: user_id.clone(),
                    remember_me: true,
                    ..Default::default()
                })
                .await;
            if let Ok(response) = created {
                session = response.into_inner().session;
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let session = session.expect("session service did not answer");
        let caller = Caller {
            user_id,
            session_token: session.token,
            active_organization_id: None,
            active_team_id: None,
            email: request.email.clone(),
            email_verified: false,
        };
        (caller, request.email)
    }

    /// The caller's session as the session service has it now (what the gateway reads on the
    /// next request), with the active organization and team carried over into the caller.
    pub async fn refresh(&self, caller: &mut Caller) -> session_pb::Session {
        let session = self
            .sessions()
            .get_session(session_pb::GetSessionRequest {
                token: caller.session_token.clone(),
                disable_refresh: true,
            })
            .await
            .unwrap()
            .into_inner()
            .session
            .expect("a live session");
        caller.active_organization_id = session.active_organization_id.clone();
        caller.active_team_id = session.active_team_id.clone();
        session
    }

    /// The user as the caller's session shows them now (what get-session answers).
    pub async fn session_user(&self, caller: &Caller) -> gatehouse_proto::identity::v1::User {
        self.sessions()
            .get_session(session_pb::GetSessionRequest {
                token: caller.session_token.clone(),
                disable_refresh: true,
            })
            .await
            .unwrap()
            .into_inner()
            .user
            .expect("a live session's user")
    }
}
