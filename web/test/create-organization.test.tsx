import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { client, ok, refused } from "./auth-client-mock";
import { renderFresh } from "./render";

vi.mock("@/lib/auth-client", () => ({ authClient: client }));
vi.mock("next/link", () => ({ default: ({ href, children }: { href: string; children: React.ReactNode }) => <a href={href}>{children}</a> }));

const { CreateOrganizationForm } = await import("@/components/organization/CreateOrganizationForm");
const { slugify } = await import("@/lib/rules");

/** check-slug as the server answers it: taken for the slugs listed, free otherwise. */
function slugsTaken(...taken: string[]) {
  client.organization.checkSlug.mockImplementation(({ slug }: { slug: string }) =>
    taken.includes(slug) ? refused(400, "ORGANIZATION_SLUG_ALREADY_TAKEN", "Organization slug already taken") : ok({ status: true }),
  );
}

describe("slugify", () => {
  it.each([
    ["Acme Labs", "acme-labs"],
    ["  Café Noir & Co. ", "cafe-noir-co"],
    ["--Hello__World--", "hello-world"],
    ["Ünïcödé 2024!", "unicode-2024"],
    ["日本", ""],
  ])("%s → %s", (name, slug) => expect(slugify(name)).toBe(slug));
});

describe("CreateOrganizationForm", () => {
  beforeEach(() => vi.resetAllMocks());

  it("derives the slug from the name and says when it is available", async () => {
    slugsTaken();
    render();
    await userEvent.type(screen.getByLabelText("Name"), "Acme Labs");
    expect(screen.getByLabelText("Slug")).toHaveValue("acme-labs");
    expect(await screen.findByText("acme-labs is available.")).toBeInTheDocument();
    // Debounced: one check for the settled slug, none for each keystroke.
    expect(client.organization.checkSlug).toHaveBeenCalledTimes(1);
    expect(client.organization.checkSlug).toHaveBeenCalledWith({ slug: "acme-labs" });
  });

  it("shows a taken slug on the slug field and does not submit it", async () => {
    slugsTaken("acme");
    render();
    await userEvent.type(screen.getByLabelText("Name"), "Acme");
    const slug = screen.getByLabelText("Slug");
    await waitFor(() => expect(slug).toHaveAccessibleDescription(/^This slug is taken\. Try another\./));
    expect(slug).toHaveAttribute("aria-invalid", "true");
    await userEvent.click(screen.getByRole("button", { name: "Create organization" }));
    expect(client.organization.create).not.toHaveBeenCalled();

    // A slug of one's own stays, whatever the name becomes.
    await userEvent.clear(slug);
    await userEvent.type(slug, "acme-2");
    expect(await screen.findByText("acme-2 is available.")).toBeInTheDocument();
    expect(slug).not.toHaveAttribute("aria-invalid");
    await userEvent.type(screen.getByLabelText("Name"), " Two");
    expect(slug).toHaveValue("acme-2");
  });

  it("checks the slug's form before asking the server", async () => {
    slugsTaken();
    render();
    await userEvent.type(screen.getByLabelText("Slug"), "Not A Slug");
    await userEvent.tab();
    expect(screen.getByLabelText("Slug")).toHaveAccessibleDescription(/^Use lowercase letters, digits and single hyphens/);
    await userEvent.click(screen.getByRole("button", { name: "Create organization" }));
    expect(screen.getByLabelText("Name")).toHaveAccessibleDescription("Enter a name.");
    expect(client.organization.checkSlug).not.toHaveBeenCalled();
    expect(client.organization.create).not.toHaveBeenCalled();
  });

  it("puts a slug taken meanwhile (the server's answer on create) on the slug field", async () => {
    slugsTaken();
    client.organization.create.mockReturnValue(refused(400, "ORGANIZATION_SLUG_ALREADY_TAKEN", "Organization slug already taken"));
    const onCreated = vi.fn();
    render(onCreated);
    await userEvent.type(screen.getByLabelText("Name"), "Acme");
    await screen.findByText("acme is available.");
    await userEvent.click(screen.getByRole("button", { name: "Create organization" }));
    expect(screen.getByLabelText("Slug")).toHaveAccessibleDescription(/^This slug is taken\. Try another\./);
    expect(onCreated).not.toHaveBeenCalled();
  });

  it("creates the organization with its logo and hands over its id", async () => {
    slugsTaken();
    client.organization.create.mockReturnValue(ok({ id: "org-1", name: "Acme", slug: "acme" }));
    const onCreated = vi.fn();
    render(onCreated);
    await userEvent.type(screen.getByLabelText("Name"), " Acme ");
    await userEvent.type(screen.getByLabelText("Logo address (optional)"), "not a url");
    await userEvent.click(screen.getByRole("button", { name: "Create organization" }));
    expect(screen.getByLabelText("Logo address (optional)")).toHaveAccessibleDescription(/^Enter a full address/);
    await userEvent.clear(screen.getByLabelText("Logo address (optional)"));
    await userEvent.type(screen.getByLabelText("Logo address (optional)"), "https://example.com/logo.png");
    await userEvent.click(screen.getByRole("button", { name: "Create organization" }));
    expect(client.organization.create).toHaveBeenCalledWith({ name: "Acme", slug: "acme", logo: "https://example.com/logo.png" });
    expect(onCreated).toHaveBeenCalledWith("org-1");
  });
});

function render(onCreated = vi.fn()) {
  return renderFresh(<CreateOrganizationForm userId="u1" onCreated={onCreated} />);
}
