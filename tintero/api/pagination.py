from rest_framework.pagination import PageNumberPagination


class Pagination(PageNumberPagination):
    """Every list is paginated: 25 by default, ``?page_size=`` up to 100."""

    page_size = 25
    page_size_query_param = "page_size"
    max_page_size = 100
