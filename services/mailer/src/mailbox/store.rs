//! Reading the `mails` table, newest first.

use chrono::{DateTime, Utc};
use gatehouse_kit::db::{Db, DbError, sea_query};
use sea_query::{Expr, ExprTrait, Func, Order, Query};

#[derive(Debug, sqlx::FromRow)]
pub struct MailRow {
    pub id: String,
    pub recipient: String,
    pub kind: String,
    pub language: i32,
    pub subject: String,
    pub text_body: String,
    pub html_body: String,
    pub status: String,
    pub attempts: i32,
    pub last_error: Option<String>,
    pub created_at: DateTime<Utc>,
    pub sent_at: Option<DateTime<Utc>>,
}

pub struct Filter<'a> {
    pub limit: u64,
    pub recipient: Option<&'a str>,
    pub status: Option<&'static str>,
}

pub async fn list(db: &Db, filter: &Filter<'_>) -> Result<Vec<MailRow>, DbError> {
    let mut select = Query::select();
    select
        .columns([
            "id",
            "recipient",
            "kind",
            "language",
            "subject",
            "text_body",
            "html_body",
            "status",
            "attempts",
            "last_error",
            "created_at",
            "sent_at",
        ])
        .from("mails")
        .order_by("created_at", Order::Desc)
        .order_by("id", Order::Desc)
        .limit(filter.limit);
    if let Some(recipient) = filter.recipient {
        select.and_where(Func::lower(Expr::col("recipient")).eq(recipient.to_lowercase()));
    }
    if let Some(status) = filter.status {
        select.and_where(Expr::col("status").eq(status));
    }
    db.build(&select).fetch_all(db).await
}
