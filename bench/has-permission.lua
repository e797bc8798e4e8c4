-- wrk script: POST /api/auth/organization/has-permission for an organization the caller is in
-- (membership read + the one permission check), to compare with get-active-member-role (the
-- same membership read, no check): what a permission check adds to a route.
--
-- Env: ORGANIZATION_ID; ORIGIN = the server's BASE_URL. The cookie comes with wrk's -H.
wrk.method = "POST"
wrk.path = "/api/auth/organization/has-permission"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Origin"] = os.getenv("ORIGIN") or "http://localhost:3000"
wrk.body = string.format('{"organizationId":"%s","permissions":{"member":["create"]}}',
  os.getenv("ORGANIZATION_ID") or "")
