"use client";
import { useEffect, useState } from "react";
import { formatDate } from "@/lib/format";
import { useT, type t as translate } from "@/lib/i18n/admin";
import { LoadError } from "../LoadError";
import { CreateUserDialog } from "./CreateUserDialog";
import { ManageUserDialog } from "./ManageUserDialog";
import { PAGE_SIZE, useUsers, type UsersQuery } from "./hooks";

const COLUMNS: { key: UsersQuery["sortBy"]; label: Parameters<typeof translate>[0] }[] = [
  { key: "name", label: "column.name" },
  { key: "email", label: "column.email" },
  { key: "createdAt", label: "column.createdAt" },
];

/** The users table: search, sort by column, pages of 20; create and manage users. */
export function UsersAdmin({ userId }: { userId: string }) {
  const t = useT();
  const [query, setQuery] = useState<UsersQuery>({
    search: "",
    searchField: "email",
    sortBy: "createdAt",
    sortDirection: "desc",
    page: 0,
  });
  const [searchText, setSearchText] = useState("");
  const [creating, setCreating] = useState(false);
  const [managing, setManaging] = useState<string>();
  const { data, error, isLoading, isValidating, mutate } = useUsers(userId, query);

  const total = data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
  // Removing the last user of the last page leaves that page empty: step back to one that is.
  useEffect(() => {
    if (data && query.page >= pages) setQuery((q) => ({ ...q, page: pages - 1 }));
  }, [data, pages, query.page]);
  const users = data?.users ?? [];
  const sortLabel = COLUMNS.find((c) => c.key === query.sortBy)?.label;
  const sortBy = (key: UsersQuery["sortBy"]) =>
    setQuery((q) => ({
      ...q,
      sortBy: key,
      sortDirection: q.sortBy === key && q.sortDirection === "asc" ? "desc" : "asc",
      page: 0,
    }));

  return (
    <section className="stack" aria-labelledby="users-title">
      <div className="toolbar">
        <h1 id="users-title">{t("users.title")}</h1>
        <button type="button" className="button button-primary" onClick={() => setCreating(true)}>
          {t("users.create")}
        </button>
      </div>
      <form
        className="search"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setQuery((q) => ({ ...q, search: searchText, page: 0 }));
        }}
      >
        <label htmlFor="user-search">{t("search.label")}</label>
        <input id="user-search" type="search" value={searchText} onChange={(e) => setSearchText(e.target.value)} />
        <label htmlFor="user-search-field" className="visually-hidden">
          {t("search.in")}
        </label>
        <select
          id="user-search-field"
          value={query.searchField}
          onChange={(e) => setQuery((q) => ({ ...q, searchField: e.target.value as UsersQuery["searchField"], page: 0 }))}
        >
          <option value="email">{t("search.email")}</option>
          <option value="name">{t("search.name")}</option>
        </select>
        <button type="submit" className="button button-secondary">
          {t("search.submit")}
        </button>
      </form>

      {error ? (
        <LoadError message={t("users.loadFailed")} error={error} retry={mutate} />
      ) : null}

      <div className="table-wrap" aria-busy={isLoading || isValidating || undefined}>
        <table>
          <caption className="visually-hidden">
            {t("users.caption", { column: sortLabel ? t(sortLabel) : undefined, direction: query.sortDirection })}
          </caption>
          <thead>
            <tr>
              {COLUMNS.map((c) => (
                <th key={c.key} scope="col" aria-sort={query.sortBy === c.key ? (query.sortDirection === "asc" ? "ascending" : "descending") : "none"}>
                  <button type="button" className="sort" onClick={() => sortBy(c.key)}>
                    {t(c.label)}
                    <span aria-hidden="true">{query.sortBy === c.key ? (query.sortDirection === "asc" ? " ▲" : " ▼") : ""}</span>
                  </button>
                </th>
              ))}
              <th scope="col">{t("column.role")}</th>
              <th scope="col">{t("column.status")}</th>
              <th scope="col">
                <span className="visually-hidden">{t("column.actions")}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {isLoading && !data
              ? Array.from({ length: 5 }, (_, i) => (
                  <tr key={i} className="skeleton-row">
                    <td colSpan={6}>&nbsp;</td>
                  </tr>
                ))
              : users.map((u) => (
                  <tr key={u.id} data-testid="user-row">
                    <td>{u.name}</td>
                    <td>{u.email}</td>
                    <td>{formatDate(u.createdAt)}</td>
                    <td>{u.role ?? "user"}</td>
                    <td>{u.banned ? <span className="badge badge-danger">{t("users.banned")}</span> : t("users.active")}</td>
                    <td>
                      <button type="button" className="button button-secondary" onClick={() => setManaging(u.id)} aria-label={t("users.manageLabel", { email: u.email })}>
                        {t("users.manage")}
                      </button>
                    </td>
                  </tr>
                ))}
          </tbody>
        </table>
        {!isLoading && !error && users.length === 0 ? <p className="empty">{query.search ? t("users.emptySearch") : t("users.empty")}</p> : null}
      </div>

      <nav className="pager" aria-label={t("pager.label")}>
        <button type="button" className="button button-secondary" disabled={query.page === 0} onClick={() => setQuery((q) => ({ ...q, page: q.page - 1 }))}>
          {t("pager.previous")}
        </button>
        <span aria-live="polite">
          {t("pager.status", { page: Math.min(query.page + 1, pages), pages, total })}
        </span>
        <button type="button" className="button button-secondary" disabled={query.page + 1 >= pages} onClick={() => setQuery((q) => ({ ...q, page: q.page + 1 }))}>
          {t("pager.next")}
        </button>
      </nav>

      <CreateUserDialog open={creating} onClose={() => setCreating(false)} />
      {managing ? <ManageUserDialog key={managing} adminId={userId} user={users.find((u) => u.id === managing)} onClose={() => setManaging(undefined)} /> : null}
    </section>
  );
}
