"use client";
import { useEffect, useState } from "react";
import { formatDate } from "@/lib/format";
import { LoadError } from "../LoadError";
import { CreateUserDialog } from "./CreateUserDialog";
import { ManageUserDialog } from "./ManageUserDialog";
import { PAGE_SIZE, useUsers, type UsersQuery } from "./hooks";

const COLUMNS: { key: UsersQuery["sortBy"]; label: string }[] = [
  { key: "name", label: "Name" },
  { key: "email", label: "Email" },
  { key: "createdAt", label: "Joined" },
];

/** The users table: search, sort by column, pages of 20; create and manage users. */
export function UsersAdmin({ userId }: { userId: string }) {
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
        <h1 id="users-title">Users</h1>
        <button type="button" className="button button-primary" onClick={() => setCreating(true)}>
          Create user
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
        <label htmlFor="user-search">Search</label>
        <input id="user-search" type="search" value={searchText} onChange={(e) => setSearchText(e.target.value)} />
        <label htmlFor="user-search-field" className="visually-hidden">
          Search in
        </label>
        <select
          id="user-search-field"
          value={query.searchField}
          onChange={(e) => setQuery((q) => ({ ...q, searchField: e.target.value as UsersQuery["searchField"], page: 0 }))}
        >
          <option value="email">Email</option>
          <option value="name">Name</option>
        </select>
        <button type="submit" className="button button-secondary">
          Search
        </button>
      </form>

      {error ? (
        <LoadError what="the users" error={error} retry={mutate} />
      ) : null}

      <div className="table-wrap" aria-busy={isLoading || isValidating || undefined}>
        <table>
          <caption className="visually-hidden">
            Users, sorted by {COLUMNS.find((c) => c.key === query.sortBy)?.label} {query.sortDirection === "asc" ? "ascending" : "descending"}
          </caption>
          <thead>
            <tr>
              {COLUMNS.map((c) => (
                <th key={c.key} scope="col" aria-sort={query.sortBy === c.key ? (query.sortDirection === "asc" ? "ascending" : "descending") : "none"}>
                  <button type="button" className="sort" onClick={() => sortBy(c.key)}>
                    {c.label}
                    <span aria-hidden="true">{query.sortBy === c.key ? (query.sortDirection === "asc" ? " ▲" : " ▼") : ""}</span>
                  </button>
                </th>
              ))}
              <th scope="col">Role</th>
              <th scope="col">Status</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
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
                    <td>{u.banned ? <span className="badge badge-danger">Banned</span> : "Active"}</td>
                    <td>
                      <button type="button" className="button button-secondary" onClick={() => setManaging(u.id)} aria-label={`Manage ${u.email}`}>
                        Manage
                      </button>
                    </td>
                  </tr>
                ))}
          </tbody>
        </table>
        {!isLoading && !error && users.length === 0 ? <p className="empty">{query.search ? "No users match this search." : "No users yet."}</p> : null}
      </div>

      <nav className="pager" aria-label="Pages">
        <button type="button" className="button button-secondary" disabled={query.page === 0} onClick={() => setQuery((q) => ({ ...q, page: q.page - 1 }))}>
          Previous
        </button>
        <span aria-live="polite">
          Page {Math.min(query.page + 1, pages)} of {pages} · {total} {total === 1 ? "user" : "users"}
        </span>
        <button type="button" className="button button-secondary" disabled={query.page + 1 >= pages} onClick={() => setQuery((q) => ({ ...q, page: q.page + 1 }))}>
          Next
        </button>
      </nav>

      <CreateUserDialog open={creating} onClose={() => setCreating(false)} />
      {managing ? <ManageUserDialog key={managing} user={users.find((u) => u.id === managing)} onClose={() => setManaging(undefined)} /> : null}
    </section>
  );
}
