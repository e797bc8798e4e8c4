//! `gatehouse.identity.v1.TwoFactorService`.

use gatehouse_kit::errors::base;
use gatehouse_proto::identity::v1 as pb;
use gatehouse_proto::identity::v1::two_factor_service_server::{
    TwoFactorService, TwoFactorServiceServer,
};
use tonic::{Request, Response, Status};

use super::{Method, SignInStart, Target, TrustedDevice, TwoFactor};

pub fn server(rules: TwoFactor) -> TwoFactorServiceServer<TwoFactor> {
    TwoFactorServiceServer::new(rules)
}

fn target(target: Option<pb::TwoFactorTarget>) -> Result<Target, Status> {
    match target.and_then(|t| t.target) {
        Some(pb::two_factor_target::Target::Challenge(id)) => Ok(Target::Challenge(id)),
        Some(pb::two_factor_target::Target::SignedIn(s)) => Ok(Target::SignedIn {
            user_id: s.user_id,
            session_id: s.session_id,
        }),
        None => Err(base::VALIDATION_ERROR
            .with_message("a two-factor target is required")
            .into()),
    }
}

fn trusted(device: TrustedDevice) -> pb::TrustedDevice {
    pb::TrustedDevice {
        identifier: device.identifier,
        expires_in_seconds: device.expires_in.as_secs() as i64,
    }
}

#[tonic::async_trait]
impl TwoFactorService for TwoFactor {
    async fn enable_two_factor(
        &self,
        request: Request<pb::EnableTwoFactorRequest>,
    ) -> Result<Response<pb::EnableTwoFactorResponse>, Status> {
        let r = request.into_inner();
        let enabled = self
            .enable(&r.user_id, &r.password, &r.method, r.issuer.as_deref())
            .await?;
        Ok(Response::new(pb::EnableTwoFactorResponse {
            method: enabled.method.into(),
            totp_uri: enabled.totp_uri,
            backup_codes: enabled.backup_codes,
            user: Some(enabled.user.into()),
        }))
    }

    async fn disable_two_factor(
        &self,
        request: Request<pb::DisableTwoFactorRequest>,
    ) -> Result<Response<pb::DisableTwoFactorResponse>, Status> {
        let r = request.into_inner();
        let user = self.disable(&r.user_id, &r.password).await?;
        Ok(Response::new(pb::DisableTwoFactorResponse {
            user: Some(user.into()),
        }))
    }

    async fn get_totp_uri(
        &self,
        request: Request<pb::GetTotpUriRequest>,
    ) -> Result<Response<pb::GetTotpUriResponse>, Status> {
        let r = request.into_inner();
        let totp_uri = self.totp_uri_of(&r.user_id, &r.password).await?;
        Ok(Response::new(pb::GetTotpUriResponse { totp_uri }))
    }

    async fn generate_backup_codes(
        &self,
        request: Request<pb::GenerateBackupCodesRequest>,
    ) -> Result<Response<pb::GenerateBackupCodesResponse>, Status> {
        let r = request.into_inner();
        let backup_codes = self
            .regenerate_backup_codes(&r.user_id, &r.password)
            .await?;
        Ok(Response::new(pb::GenerateBackupCodesResponse {
            backup_codes,
        }))
    }

    async fn begin_sign_in(
        &self,
        request: Request<pb::BeginSignInRequest>,
    ) -> Result<Response<pb::BeginSignInResponse>, Status> {
        let r = request.into_inner();
        let start =
            TwoFactor::begin_sign_in(self, &r.user_id, r.remember, r.trusted_device.as_deref())
                .await?;
        let outcome = match start {
            SignInStart::NotNeeded => None,
            SignInStart::Trusted(device) => Some(pb::begin_sign_in_response::Outcome::Trusted(
                trusted(device),
            )),
            SignInStart::Challenge {
                id,
                methods,
                expires_in,
            } => Some(pb::begin_sign_in_response::Outcome::Challenge(
                pb::Challenge {
                    id,
                    methods: methods.into_iter().map(String::from).collect(),
                    expires_in_seconds: expires_in.as_secs() as i64,
                },
            )),
        };
        Ok(Response::new(pb::BeginSignInResponse { outcome }))
    }

    async fn send_otp(
        &self,
        request: Request<pb::SendOtpRequest>,
    ) -> Result<Response<pb::SendOtpResponse>, Status> {
        let target = target(request.into_inner().target)?;
        TwoFactor::send_otp(self, &target).await?;
        Ok(Response::new(pb::SendOtpResponse {}))
    }

    async fn verify_two_factor(
        &self,
        request: Request<pb::VerifyTwoFactorRequest>,
    ) -> Result<Response<pb::VerifyTwoFactorResponse>, Status> {
        let r = request.into_inner();
        let method = match pb::TwoFactorMethod::try_from(r.method) {
            Ok(pb::TwoFactorMethod::Totp) => Method::Totp,
            Ok(pb::TwoFactorMethod::Otp) => Method::Otp,
            Ok(pb::TwoFactorMethod::BackupCode) => Method::BackupCode,
            _ => {
                return Err(base::VALIDATION_ERROR
                    .with_message("unknown two-factor method")
                    .into());
            }
        };
        let verified = self
            .verify(&target(r.target)?, method, &r.code, r.trust_device)
            .await?;
        Ok(Response::new(pb::VerifyTwoFactorResponse {
            user: Some(verified.user.into()),
            sign_in: verified.sign_in,
            remember: verified.remember,
            trusted: verified.trusted.map(trusted),
            enabled: verified.enabled,
        }))
    }

    async fn forget_trusted_devices(
        &self,
        request: Request<pb::ForgetTrustedDevicesRequest>,
    ) -> Result<Response<pb::ForgetTrustedDevicesResponse>, Status> {
        let r = request.into_inner();
        TwoFactor::forget_trusted_devices(self, &r.user_id, r.kept.as_deref()).await?;
        Ok(Response::new(pb::ForgetTrustedDevicesResponse {}))
    }
}
