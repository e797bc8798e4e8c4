-- list-members' default page: an organization's members oldest first. The index walks them in
-- that order, so a page is read and no longer sorted, and LIMIT stops the walk at its end.
-- It also serves a descending page (walked backwards) and the count of an organization's
-- members, as the unique (organization_id, user_id) index did.
CREATE INDEX members_page_order ON members (organization_id, created_at, id);
