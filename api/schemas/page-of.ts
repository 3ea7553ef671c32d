import { type Page, toPage } from "./common.ts";

/**
 * Pages a list its service reads whole: lists that stay small per organisation or user and mix built-in
 * entries with rows (themes, roles) or are computed (tag groups, billing lines), so one ordered read is cut here.
 */
export const pageOf = <T>(all: T[], query: { page: number; limit: number }): Page<T> =>
  toPage(all.slice((query.page - 1) * query.limit, query.page * query.limit), all.length, query.page, query.limit);
