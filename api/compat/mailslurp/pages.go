package mailslurp

import (
	"net/http"

	"tempmail/api/family"
)

// The MailSlurp family's pages (lists.go): the SDK's paginated calls ask
// for a page as Spring Data does (page from 0, size, sort on createdAt)
// and read the answer in Spring's Page shape, which MailSlurp's service
// writes as Spring writes it.

// Bounds on a page asked for.
const (
	defaultPageSize = 20 // Spring's default, and MailSlurp's
	// maxPage bounds page: a tenant's list is read to at most
	// family.TenantScanMax inboxes, an inbox's to its cap, so no page
	// beyond this can hold anything.
	maxPage = family.TenantScanMax
)

// pageRequest is a page asked for: its number from 0, its size, and
// whether the newest come first (sort=DESC).
type pageRequest struct {
	page, size int
	desc       bool
}

// readPage reads page, size and sort (ASC unless DESC).
func readPage(r *http.Request) (q pageRequest, err error) {
	if q.page, err = mailslurpInt(r, "page", 0, 0, maxPage); err != nil {
		return q, err
	}
	if q.size, err = mailslurpInt(r, "size", defaultPageSize, 1, family.MaxLimit); err != nil {
		return q, err
	}
	q.desc, err = mailslurpDesc(r)
	return q, err
}

// window is where the page is among n items: from, to.
func (q pageRequest) window(n int) (int, int) {
	from := min(q.page*q.size, n)
	return from, min(from+q.size, n)
}

// springSort is Spring's Sort: every page here is sorted, on createdAt.
type springSort struct {
	Empty    bool `json:"empty"`
	Sorted   bool `json:"sorted"`
	Unsorted bool `json:"unsorted"`
}

// springPageable is Spring's Pageable: the page that was asked for.
type springPageable struct {
	Offset     int        `json:"offset"`
	Unpaged    bool       `json:"unpaged"`
	Sort       springSort `json:"sort"`
	Paged      bool       `json:"paged"`
	PageNumber int        `json:"pageNumber"`
	PageSize   int        `json:"pageSize"`
}

// springPage is Spring's Page of T (the SDK's PageInboxProjection,
// PageEmailPreview): the content, and where it is among total items.
type springPage[T any] struct {
	Content          []T            `json:"content"`
	Pageable         springPageable `json:"pageable"`
	TotalPages       int            `json:"totalPages"`
	TotalElements    int            `json:"totalElements"`
	Last             bool           `json:"last"`
	Size             int            `json:"size"`
	Number           int            `json:"number"`
	First            bool           `json:"first"`
	NumberOfElements int            `json:"numberOfElements"`
	Sort             springSort     `json:"sort"`
	Empty            bool           `json:"empty"`
}

// pageOf is content as page q of total items.
func pageOf[T any](q pageRequest, content []T, total int) springPage[T] {
	if content == nil {
		content = []T{}
	}
	sorted := springSort{Sorted: true}
	pages := (total + q.size - 1) / q.size
	return springPage[T]{Content: content, TotalPages: pages, TotalElements: total, Last: q.page >= pages-1,
		Size: q.size, Number: q.page, First: q.page == 0, NumberOfElements: len(content), Sort: sorted, Empty: len(content) == 0,
		Pageable: springPageable{Offset: q.page * q.size, Sort: sorted, Paged: true, PageNumber: q.page, PageSize: q.size}}
}
