use gatehouse_kit::testing::schema::assert_parity;

#[tokio::test]
async fn sqlite_and_postgres_migrations_agree() {
    assert_parity(&gatehouse_billing_webhook::MIGRATIONS).await;
}
