//! `gatehouse.organization.v1.OrganizationService`.

use gatehouse_kit::errors::base;
use gatehouse_proto::organization::v1 as pb;
use gatehouse_proto::organization::v1::organization_service_server::{
    OrganizationService, OrganizationServiceServer,
};
use tonic::{Request, Response, Status};

use super::{Named, NewOrganization, Organizations, store};
use crate::caller::Caller;

pub fn server(organizations: Organizations) -> OrganizationServiceServer<Organizations> {
    OrganizationServiceServer::new(organizations)
}

/// Every call but check-slug is made for a signed-in caller.
pub fn caller(caller: Option<pb::Caller>) -> Result<Caller, Status> {
    match caller {
        Some(c) if !c.user_id.is_empty() => Ok(Caller {
            user_id: c.user_id,
            session_token: c.session_token,
            active_organization_id: c.active_organization_id.filter(|id| !id.is_empty()),
            active_team_id: c.active_team_id.filter(|id| !id.is_empty()),
            email: c.email,
            email_verified: c.email_verified,
        }),
        _ => Err(base::VALIDATION_ERROR
            .with_message("caller.user_id is required")
            .into()),
    }
}

pub fn named<'a>(id: &'a Option<String>, slug: &'a Option<String>) -> Option<Named<'a>> {
    match (id.as_deref(), slug.as_deref()) {
        (Some(id), _) => Some(Named::Id(id)),
        (None, Some(slug)) => Some(Named::Slug(slug)),
        (None, None) => None,
    }
}

#[tonic::async_trait]
impl OrganizationService for Organizations {
    async fn create_organization(
        &self,
        request: Request<pb::CreateOrganizationRequest>,
    ) -> Result<Response<pb::CreateOrganizationResponse>, Status> {
        let r = request.into_inner();
        let caller = caller(r.caller)?;
        gatehouse_kit::validate::check_name("name", &r.name)?;
        let (organization, owner) = self
            .create(
                &caller,
                NewOrganization {
                    name: r.name,
                    slug: r.slug,
                    logo: r.logo,
                    metadata: r.metadata,
                    keep_current_active_organization: r.keep_current_active_organization,
                },
            )
            .await?;
        Ok(Response::new(pb::CreateOrganizationResponse {
            organization: Some(organization.into()),
            members: vec![owner.into()],
        }))
    }

    async fn check_slug(
        &self,
        request: Request<pb::CheckSlugRequest>,
    ) -> Result<Response<pb::CheckSlugResponse>, Status> {
        Organizations::check_slug(self, &request.into_inner().slug).await?;
        Ok(Response::new(pb::CheckSlugResponse {}))
    }

    async fn update_organization(
        &self,
        request: Request<pb::UpdateOrganizationRequest>,
    ) -> Result<Response<pb::UpdateOrganizationResponse>, Status> {
        let r = request.into_inner();
        let caller = caller(r.caller)?;
        if let Some(name) = &r.name {
            gatehouse_kit::validate::check_name("data.name", name)?;
        }
        let change = store::Change {
            name: r.name,
            slug: r.slug,
            logo: if r.clear_logo {
                Some(None)
            } else {
                r.logo.map(Some)
            },
            metadata: r.metadata.map(Some),
        };
        let organization = self
            .update(&caller, r.organization_id.as_deref(), change)
            .await?;
        Ok(Response::new(pb::UpdateOrganizationResponse {
            organization: Some(organization.into()),
        }))
    }

    async fn delete_organization(
        &self,
        request: Request<pb::DeleteOrganizationRequest>,
    ) -> Result<Response<pb::DeleteOrganizationResponse>, Status> {
        let r = request.into_inner();
        let caller = caller(r.caller)?;
        let organization = self.delete(&caller, &r.organization_id).await?;
        Ok(Response::new(pb::DeleteOrganizationResponse {
            organization: Some(organization.into()),
        }))
    }

    async fn get_full_organization(
        &self,
        request: Request<pb::GetFullOrganizationRequest>,
    ) -> Result<Response<pb::GetFullOrganizationResponse>, Status> {
        let r = request.into_inner();
        let caller = caller(r.caller)?;
        let named = named(&r.organization_id, &r.organization_slug);
        let response = match self.get_full(&caller, named, r.members_limit).await? {
            Some(full) => pb::GetFullOrganizationResponse {
                organization: Some(full.organization.into()),
                members: full.members.into_iter().map(Into::into).collect(),
                invitations: full.invitations.into_iter().map(Into::into).collect(),
                teams: full.teams.into_iter().map(Into::into).collect(),
            },
            None => pb::GetFullOrganizationResponse::default(),
        };
        Ok(Response::new(response))
    }

    async fn list_organizations(
        &self,
        request: Request<pb::ListOrganizationsRequest>,
    ) -> Result<Response<pb::ListOrganizationsResponse>, Status> {
        let caller = caller(request.into_inner().caller)?;
        let organizations = self.list(&caller).await?;
        Ok(Response::new(pb::ListOrganizationsResponse {
            organizations: organizations.into_iter().map(Into::into).collect(),
        }))
    }

    async fn set_active_organization(
        &self,
        request: Request<pb::SetActiveOrganizationRequest>,
    ) -> Result<Response<pb::SetActiveOrganizationResponse>, Status> {
        let r = request.into_inner();
        let caller = caller(r.caller)?;
        let named = named(&r.organization_id, &r.organization_slug);
        let organization = self.set_active(&caller, r.set, named).await?;
        Ok(Response::new(pb::SetActiveOrganizationResponse {
            organization: organization.map(Into::into),
        }))
    }
}
